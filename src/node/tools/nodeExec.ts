import type { ExecResult } from '../../core/ports/workspace';
import type { SandboxedSpawn } from '../sandbox/commandSandbox';
import type { Launch, ProcessEnd, RunningProcess } from '../spawner/launch';
import { launchProcess } from '../spawner/processStarts';

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
  const launch: Launch = sandbox
    ? { file: sandbox.file, args: sandbox.args, cwd: options.cwd, env: sandbox.env ?? process.env, coverInherited: sandbox.coverInherited, descriptor3: sandbox.descriptor3 }
    : { file: '/bin/sh', args: ['-c', command], cwd: options.cwd, env: process.env };
  let ending: 'timeout' | 'cancelled' | undefined;
  let child: RunningProcess | undefined;
  const kill = (why: 'timeout' | 'cancelled') => {
    ending ??= why;
    child?.kill();
  };
  const timer = setTimeout(() => kill('timeout'), timeoutMs);
  const onAbort = () => kill('cancelled');
  signal.addEventListener('abort', onAbort, { once: true });
  const end = await new Promise<ProcessEnd>((resolve) => {
    child = launchProcess(launch, { stdout: (c) => output.push(c), stderr: (c) => output.push(c), end: resolve });
  });
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
  const status =
    ending === 'timeout' ? `timed out after ${timeoutMs / 1000} s` : ending === 'cancelled' ? 'cancelled' : end.error && end.code === null ? `ended without an exit code: ${end.error}` : `exit code ${end.code ?? 'unknown'}`;
  const shown = output.bytes();
  const failed = ending !== undefined || end.code !== 0;
  const sandboxRefused = failed && !ending ? sandbox?.refusal(shown) : undefined;
  return { output: Buffer.concat([shown, Buffer.from(`\n[${status}]`)]), failed, ...(sandboxRefused ? { sandboxRefused } : {}) };
}
