import { spawn } from 'child_process';
import type { ExecResult } from '../../core/ports/workspace';
import type { SandboxedSpawn } from '../sandbox/commandSandbox';

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

/**
 * Runs `command` with /bin/sh in its own process group, killed whole on timeout or cancellation;
 * in the sandbox `sandbox` starts (whose first process ends every other one it holds).
 */
export async function execShell(command: string, options: { cwd: string; timeoutMs: number; maxOutputBytes: number; signal: AbortSignal }, sandbox?: SandboxedSpawn): Promise<ExecResult> {
  try {
    return await run(command, options, sandbox);
  } finally {
    sandbox?.done();
  }
}

async function run(command: string, options: { cwd: string; timeoutMs: number; maxOutputBytes: number; signal: AbortSignal }, sandbox: SandboxedSpawn | undefined): Promise<ExecResult> {
  const { timeoutMs, signal } = options;
  const output = new CappedOutput(options.maxOutputBytes);
  const child = sandbox
    ? spawn(sandbox.file, sandbox.args, { cwd: options.cwd, detached: true, stdio: sandbox.stdio ?? ['ignore', 'pipe', 'pipe'], env: sandbox.env })
    : spawn('/bin/sh', ['-c', command], { cwd: options.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c: Buffer) => output.push(c));
  child.stderr!.on('data', (c: Buffer) => output.push(c));
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
  signal.addEventListener('abort', onAbort, { once: true });
  const code = await new Promise<number | null>((resolve) => {
    child.on('error', () => resolve(null));
    child.on('close', (c) => resolve(c));
  });
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
  const status = ending === 'timeout' ? `timed out after ${timeoutMs / 1000} s` : ending === 'cancelled' ? 'cancelled' : `exit code ${code ?? 'unknown'}`;
  const shown = output.bytes();
  const failed = ending !== undefined || code !== 0;
  const sandboxRefused = failed && !ending ? sandbox?.refusal(shown) : undefined;
  return { output: Buffer.concat([shown, Buffer.from(`\n[${status}]`)]), failed, ...(sandboxRefused ? { sandboxRefused } : {}) };
}
