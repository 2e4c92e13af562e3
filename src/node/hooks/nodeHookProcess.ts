import { spawn, type ChildProcess } from 'child_process';
import type { HookExit, HookProcess, HookRun } from '../../core/ports/hookProcess';
import type { CommandSandbox } from '../sandbox/commandSandbox';

/** Each stream a hook writes is kept up to this many characters. */
export const HOOK_OUTPUT_CAP = 64 * 1024;

export interface NodeHookProcessOptions {
  /** The session's command sandbox: hooks asked to run sandboxed run in it when it is on (folders: the workspace's). */
  sandbox?: { sandbox: CommandSandbox; folders: () => readonly string[] };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Runs a hook in a shell (`sh -c` on Unix) in its own process group: the event on standard input,
 * standard output and error kept up to a cap, the whole group killed when the time limit passes
 * or the turn is cancelled. Never throws: a hook that cannot start comes back with `error`.
 */
export class NodeHookProcess implements HookProcess {
  constructor(private readonly options: NodeHookProcessOptions = {}) {}

  async run(run: HookRun, signal?: AbortSignal): Promise<HookExit> {
    const sandboxed = run.sandboxed && this.options.sandbox ? await this.options.sandbox.sandbox.spawn(run.command, run.cwd, this.options.sandbox.folders()) : undefined;
    const stdio: Array<'pipe' | 'ignore' | number> = sandboxed?.stdio ? ['pipe', ...sandboxed.stdio.slice(1)] : ['pipe', 'pipe', 'pipe'];
    return new Promise<HookExit>((resolve) => {
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      let settled = false;
      let child: ChildProcess;
      const finish = (exit: HookExit) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        sandboxed?.done();
        resolve(exit);
      };
      try {
        child = sandboxed
          ? spawn(sandboxed.file, sandboxed.args, { cwd: run.cwd, stdio, env: sandboxed.env ?? process.env, detached: process.platform !== 'win32' })
          : spawn(run.command, { cwd: run.cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: true, detached: process.platform !== 'win32', env: { ...process.env, TALLY_HOOK: '1' } });
      } catch (error) {
        sandboxed?.done();
        return resolve({ stdout: '', stderr: '', timedOut: false, error: (error as Error).message });
      }
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, run.timeoutMs);
      const onAbort = () => killGroup(child);
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        if (stdout.length < HOOK_OUTPUT_CAP) stdout += chunk.slice(0, HOOK_OUTPUT_CAP - stdout.length);
      });
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < HOOK_OUTPUT_CAP) stderr += chunk.slice(0, HOOK_OUTPUT_CAP - stderr.length);
      });
      // A hook that exits without reading its input closes the pipe early: that is no failure.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(run.input);
      child.on('error', (error) => finish({ stdout, stderr, timedOut: false, error: error.message }));
      child.on('close', (code) => finish({ ...(code !== null && !timedOut ? { exitCode: code } : {}), stdout, stderr, timedOut }));
    });
  }
}
