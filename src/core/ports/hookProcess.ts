/** One hook command to start, with the event on its standard input. */
export interface HookRun {
  command: string;
  /** The event as JSON, written to the command's standard input. */
  input: string;
  cwd: string;
  /** The process group is killed when it runs longer. */
  timeoutMs: number;
  /** Run inside the session's command sandbox, when the session has one. */
  sandboxed: boolean;
}

/** How a hook process ended. Never thrown: a hook that cannot start says so in `error`. */
export interface HookExit {
  /** Undefined when it was killed or never started. */
  exitCode?: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start. */
  error?: string;
}

/** Starts hook commands (a Node child process in a shell, in the CLI and the extension). */
export interface HookProcess {
  run(run: HookRun, signal?: AbortSignal): Promise<HookExit>;
}
