import { spawn, type ChildProcess, type StdioOptions } from 'child_process';
import { closeSync, openSync } from 'fs';
import { openDescriptors, stdioCovering } from '../sandbox/inheritedDescriptors';
import type { Launch, LaunchEvents, ProcessEnd, RunningProcess } from './launch';

/** The child's descriptors: its input, two pipes, and (when asked) /dev/null over each inherited descriptor and a file as descriptor 3. */
function descriptors(launch: Launch): { stdio: StdioOptions; close(): void } {
  const stdin = launch.input === undefined ? 'ignore' : 'pipe';
  if (!launch.coverInherited && launch.descriptor3 === undefined) return { stdio: [stdin, 'pipe', 'pipe'], close: () => undefined };
  const opened: number[] = [];
  const close = () => opened.forEach((fd) => closeSync(fd));
  try {
    const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
    if (launch.coverInherited) {
      const nullFd = openSync('/dev/null', 'r');
      opened.push(nullFd);
      stdio.splice(0, stdio.length, ...stdioCovering(openDescriptors(), nullFd));
    }
    stdio[0] = stdin;
    if (launch.descriptor3 !== undefined) {
      const fd = openSync(launch.descriptor3, 'r');
      opened.push(fd);
      stdio[3] = fd;
    }
    return { stdio, close };
  } catch (error) {
    close();
    throw error;
  }
}

/** Kills `child`'s process group (the child alone on Windows). */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Starts `launch` from this process, in a process group of its own on Unix. `started` hears the
 * child's pid before any output. Never throws: a start that fails ends with `error`.
 */
export function launchHere(launch: Launch, events: LaunchEvents, started?: (pid: number) => void): RunningProcess & { child?: ChildProcess } {
  let ended = false;
  const end = (result: ProcessEnd) => {
    if (ended) return;
    ended = true;
    events.end(result);
  };
  let child: ChildProcess;
  let opened: { stdio: StdioOptions; close(): void } | undefined;
  try {
    opened = descriptors(launch);
    child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, stdio: opened.stdio, shell: launch.shell, windowsHide: launch.windowsHide, detached: process.platform !== 'win32' });
  } catch (error) {
    opened?.close();
    end({ code: null, signal: null, error: (error as Error).message });
    return { kill: () => undefined };
  }
  opened.close();
  if (child.pid !== undefined) started?.(child.pid);
  child.stdout!.on('data', (chunk: Buffer) => events.stdout(chunk));
  child.stderr!.on('data', (chunk: Buffer) => events.stderr(chunk));
  if (launch.input !== undefined) {
    // A process that exits without reading its input closes the pipe early: that is no failure.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(launch.input);
  }
  child.on('error', (error) => end({ code: null, signal: null, error: error.message }));
  child.on('close', (code, signal) => end({ code, signal }));
  return { kill: () => killGroup(child), child };
}
