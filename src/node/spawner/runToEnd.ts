import type { Launch, ProcessEnd } from './launch';
import { launchProcess } from './processStarts';

export interface RanToEnd {
  stdout: string;
  stderr: string;
  end: ProcessEnd;
  /** Killed (its whole group) when the time limit passed. */
  timedOut: boolean;
  /** Killed when its standard output passed `maxBytes`. */
  tooLong: boolean;
}

/**
 * Runs a short program to its end through launchProcess (the spawner in the extension host) and
 * gives its output as text: for the programs Tally runs itself (git, the sandbox's probe) rather
 * than the user's commands. Never throws.
 */
export function runToEnd(launch: Launch, limits: { timeoutMs: number; maxBytes?: number }): Promise<RanToEnd> {
  const maxBytes = limits.maxBytes ?? 1024 * 1024;
  return new Promise((resolve) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let timedOut = false;
    let tooLong = false;
    let ended = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const running = launchProcess(launch, {
      stdout: (chunk) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes > maxBytes) {
          tooLong = true;
          running.kill();
        } else stdout.push(chunk);
      },
      stderr: (chunk) => {
        if (stderrBytes < maxBytes) stderr.push(chunk);
        stderrBytes += chunk.length;
      },
      end: (end) => {
        ended = true;
        clearTimeout(timer);
        resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), end, timedOut, tooLong });
      },
    });
    if (ended) return;
    timer = setTimeout(() => {
      timedOut = true;
      running.kill();
    }, limits.timeoutMs);
  });
}
