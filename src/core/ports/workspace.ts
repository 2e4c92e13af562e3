/** A path the model gave, resolved inside a workspace folder (links and `..` resolved). */
export interface ResolvedPath {
  /** The real absolute path. */
  absolute: string;
  /** The real path of the workspace folder it lies in. */
  folder: string;
  /** The path relative to its workspace folder, `/`-separated ("." for the folder itself). */
  relative: string;
}

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface DirectoryEntry {
  name: string;
  kind: EntryKind;
}

export interface SearchHit {
  /** Relative to the searched path's workspace folder, `/`-separated. */
  path: string;
  /** 1-based. */
  line: number;
  text: string;
}

export interface ExecResult {
  /** Combined stdout and stderr, head and tail kept past the byte cap, then a status line. */
  output: Uint8Array;
  /** The command timed out, was cancelled, or exited with a non-zero code. */
  failed: boolean;
  /** Set when the command ran in the sandbox and failed with the sandbox's mark in its output. */
  sandboxRefused?: SandboxRefusal;
}

/** What the sandbox refused a command, read from the error its output shows. */
export interface SandboxRefusal {
  /** `permission`: an operation refused with EPERM (a Unix socket while the network is off, a change no capability allows, anything macOS's sandbox denies). */
  what: 'write' | 'network' | 'permission';
  /** The error text that shows it ("Read-only file system", "Network is unreachable"…). */
  sign: string;
}

/**
 * How a command runs now. In a sandbox: it writes only in the workspace folders (some files that
 * run code kept read-only) and a private temporary folder, cannot read the hidden paths, and reaches
 * the network only when the user allowed it for the session. Without one: why.
 */
export type CommandSandboxState =
  | {
      sandboxed: true;
      /** What confines it: "bubblewrap", "macOS sandbox-exec". */
      by: string;
      /** The folders it may write (the workspace folders), besides the private temporary folder. */
      writable: readonly string[];
      /** Paths inside those folders kept read-only (they make other programs run code: git's config and hooks…). */
      readOnlyInside: readonly string[];
      /** The secrets it cannot read, as the user would write them (`~/.ssh`). */
      hidden: readonly string[];
      network: boolean;
    }
  | {
      sandboxed: false;
      /** Why not, in a sentence for the card and the status bar. */
      reason: string;
      /** The user turned the sandbox off (a setting or `--sandbox off`), rather than none being available. */
      turnedOff: boolean;
    };

export interface ExecOptions {
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Run without the sandbox: only after the user approved exactly that, on a card of its own. */
  outsideSandbox?: boolean;
}

/**
 * What the built-in tools may do to the user's workspace. Every path is confined to the
 * workspace folders by `resolve`; the implementations decide where text comes from and goes to
 * (the disk for the command line, open editors' buffers in VS Code).
 */
export interface Workspace {
  /** Absolute paths of the workspace folders (multi-root); the first one is the default. */
  readonly folders: readonly string[];
  /** Workspace trust: untrusted means no command execution. */
  readonly trusted: boolean;
  /** Resolves a model-given path inside the folders; throws ToolInputError when it leads outside. */
  resolve(input: string, options: { mustExist: boolean }): Promise<ResolvedPath>;
  /** What is at a resolved path, or undefined when nothing is. */
  kind(path: ResolvedPath): Promise<EntryKind | undefined>;
  /**
   * Up to `maxBytes` of a file, its full size and how many hard links (names) it has, refusing a
   * file swapped since it was resolved. More than one link means the same file may also have a
   * name outside the workspace: the tools ask before showing it and refuse to write it.
   * `savedOnly`: the file as saved on disk, never an editor's unsaved text (what a program reads).
   */
  readFile(path: ResolvedPath, maxBytes: number, options?: { savedOnly?: boolean }): Promise<{ bytes: Uint8Array; size: number; links: number }>;
  /** A folder's entries, sorted by name; links are reported, not followed. Empty when unreadable. */
  list(absolute: string): Promise<DirectoryEntry[]>;
  /**
   * Text files under a resolved folder (or the one file) whose lines match `pattern`, in path
   * order, at most `maxResults` lines. Files with more than one hard link are skipped (read_file
   * asks for them). A pattern the model wrote (`untrusted`) runs where it can
   * be stopped: one that takes too long on a file throws ToolInputError.
   */
  search(root: ResolvedPath, pattern: RegExp, options: { maxResults: number; untrusted: boolean; signal: AbortSignal }): Promise<SearchHit[]>;
  /**
   * Replaces a file's text (or creates it) after the user approved. `input` is the path as the
   * model gave it, resolved again to check nothing moved meanwhile; `basis` is the text the new
   * one was computed from (undefined for a new file). Returns a note for the model, if any.
   * Refuses (ToolInputError) a file with more than one hard link.
   */
  writeFile(input: string, path: ResolvedPath, text: string, basis: string | undefined): Promise<string | undefined>;
  /** Runs a shell command in a folder, in the sandbox when there is one; killed on timeout or when `signal` aborts. */
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
  /** How a command would run now: sandboxed (and what it may touch) or not (and why). */
  commandSandbox(): Promise<CommandSandboxState>;
  /** Lets this session's sandboxed commands reach the network from now on (the user allowed it on a card). */
  allowSandboxNetwork(): void;
  /** Why writing this resolved path can run code (git hooks, tasks, package scripts…), or undefined. */
  protectedReason(absolute: string): Promise<string | undefined>;
}
