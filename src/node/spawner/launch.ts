/**
 * One process start, described as plain data so that either this process or the spawner (a small
 * Node process that starts processes on the extension host's behalf) can carry it out.
 */
export interface Launch {
  file: string;
  args: string[];
  /** `file` is a command line for the platform's shell (`/bin/sh -c` on Unix). */
  shell?: boolean;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Written to the process's standard input, which is then closed; without it the input is /dev/null. */
  input?: string;
  /** Gives /dev/null in place of every descriptor above 2 the starting process holds open, so none reaches the child. */
  coverInherited?: boolean;
  /** A file opened read-only as the child's descriptor 3 (bubblewrap's seccomp program). */
  descriptor3?: string;
  /** Windows: no console window. */
  windowsHide?: boolean;
}

/** How a started process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: string | null;
  /** Why the process could not start, or why its end is unknown (the spawner stopped). */
  error?: string;
}

export interface LaunchEvents {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
  /** Once, after the last output. */
  end(end: ProcessEnd): void;
}

export interface RunningProcess {
  /** Kills the process's whole group (its own, since every launch starts one on Unix). */
  kill(): void;
}

/** Starts processes: in this process, or through the spawner. */
export type ProcessLauncher = (launch: Launch, events: LaunchEvents) => RunningProcess;
