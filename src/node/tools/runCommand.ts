import { spawn } from 'child_process';
import { intArg, stringArg } from '../../core/tools/args';
import { approved, deniedOutput } from '../../core/tools/approval';
import type { Tool } from '../../core/tools/types';
import { resolveInWorkspace } from './workspacePaths';

/** Keeps the head and the tail of a stream past a byte cap, counting what was dropped. */
class CappedOutput {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    const half = Math.floor(this.cap / 2);
    if (this.headBytes < half) {
      const take = chunk.subarray(0, half - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= half) {
      const first = this.tail.shift()!;
      this.tailBytes -= first.length;
      this.dropped += first.length;
    }
    const excess = this.tailBytes - half;
    if (excess > 0) {
      this.tail[0] = this.tail[0].subarray(excess);
      this.tailBytes -= excess;
      this.dropped += excess;
    }
  }
  bytes(): Buffer {
    const marker = this.dropped ? Buffer.from(`\n[… ${this.dropped} bytes of output dropped while the command ran …]\n`) : Buffer.alloc(0);
    return Buffer.concat([...this.head, marker, ...this.tail]);
  }
}

export const runCommandTool: Tool = {
  definition: {
    name: 'run_command',
    description: 'Run a shell command in a workspace folder (asks the user first) and return its output and exit code.',
    inputSchema: { type: 'object', properties: { command: { type: 'string' }, cwd: { type: 'string' }, timeout_seconds: { type: 'integer', minimum: 1, maximum: 3600 } }, required: ['command'] },
    source: 'builtin',
  },
  async execute(args, ctx) {
    const command = stringArg(args, 'command', true);
    if (!ctx.workspace.trusted) return { output: 'Commands are disabled in an untrusted workspace (VS Code Restricted Mode). Trust the workspace to allow them.', isError: true };
    const cwd = await resolveInWorkspace(stringArg(args, 'cwd') ?? '.', ctx.workspace, { mustExist: true });
    const timeoutMs = Math.min((intArg(args, 'timeout_seconds', { min: 1, max: 3600 }) ?? ctx.limits.commandTimeoutMs / 1000) * 1000, 3_600_000);
    if (!(await approved(ctx, { toolName: 'run_command', title: `Run \`${command.split('\n')[0].slice(0, 120)}\` in ${cwd.relative}`, detail: command, kind: 'command' }))) {
      return deniedOutput('running this command');
    }
    const output = new CappedOutput(ctx.limits.maxCommandOutputBytes);
    const child = spawn('/bin/sh', ['-c', command], { cwd: cwd.absolute, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => output.push(c));
    child.stderr.on('data', (c: Buffer) => output.push(c));
    let ending: 'timeout' | 'cancelled' | undefined;
    const kill = (why: 'timeout' | 'cancelled') => {
      ending ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill('timeout'), timeoutMs);
    const onAbort = () => kill('cancelled');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const code = await new Promise<number | null>((resolve) => {
      child.on('error', () => resolve(null));
      child.on('close', (c) => resolve(c));
    });
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    const status = ending === 'timeout' ? `timed out after ${timeoutMs / 1000} s` : ending === 'cancelled' ? 'cancelled' : `exit code ${code ?? 'unknown'}`;
    const bytes = Buffer.concat([output.bytes(), Buffer.from(`\n[${status}]`)]);
    return { output: bytes, isError: ending !== undefined || code !== 0 };
  },
};
