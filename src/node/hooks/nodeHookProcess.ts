import type { HookExit, HookProcess, HookRun } from '../../core/ports/hookProcess';
import type { CommandSandbox } from '../sandbox/commandSandbox';
import type { Launch } from '../spawner/launch';
import { launchProcess } from '../spawner/processStarts';

/** Each stream a hook writes is kept up to this many characters. */
export const HOOK_OUTPUT_CAP = 64 * 1024;

export interface NodeHookProcessOptions {
  /** The session's command sandbox: hooks asked to run sandboxed run in it when it is on (folders: the workspace's). */
  sandbox?: { sandbox: CommandSandbox; folders: () => readonly string[] };
}

/** Keeps a stream's text up to the cap, decoding UTF-8 across chunk boundaries. */
function cappedText(): { push(chunk: Buffer): void; text(): string } {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  return {
    push(chunk) {
      if (text.length < HOOK_OUTPUT_CAP) text += decoder.decode(chunk, { stream: true }).slice(0, HOOK_OUTPUT_CAP - text.length);
    },
    text: () => text,
  };
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
    const launch: Launch = sandboxed
      ? { file: sandboxed.file, args: sandboxed.args, cwd: run.cwd, env: sandboxed.env ?? process.env, input: run.input, coverInherited: sandboxed.coverInherited, descriptor3: sandboxed.descriptor3 }
      : { file: run.command, args: [], shell: true, cwd: run.cwd, env: { ...process.env, TALLY_HOOK: '1' }, input: run.input };
    const stdout = cappedText();
    const stderr = cappedText();
    let timedOut = false;
    let settled = false;
    try {
      return await new Promise<HookExit>((resolve) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const onAbort = () => child.kill();
        const child = launchProcess(launch, {
          stdout: (chunk) => stdout.push(chunk),
          stderr: (chunk) => stderr.push(chunk),
          end: (end) => {
            settled = true;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            const exit = { stdout: stdout.text(), stderr: stderr.text(), timedOut: timedOut && !end.error };
            resolve(end.error ? { ...exit, error: end.error } : { ...(end.code !== null && !timedOut ? { exitCode: end.code } : {}), ...exit });
          },
        });
        if (settled) return;
        timer = setTimeout(() => {
          timedOut = true;
          child.kill();
        }, run.timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      sandboxed?.done();
    }
  }
}
