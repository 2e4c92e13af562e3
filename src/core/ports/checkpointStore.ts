/**
 * Checkpoints: what a turn's file changes need to be undone. Kept in Tally's own storage (never the
 * user's git history or the workspace): each file's bytes once, content-addressed, and one record
 * per turn listing the files the turn changed with their state before and after.
 */

/** A file's state at one moment, as a checkpoint keeps it. */
export type FileState =
  | { kind: 'absent' }
  /** Its bytes are kept: it can be put back. */
  | { kind: 'stored'; hash: string; size: number }
  /** Its bytes were hashed, to tell later whether it changed, but not kept (what a change left, a file as it is now). */
  | { kind: 'seen'; hash: string; size: number }
  /** The file was there, but its bytes were not kept (over the size cap, unreadable): it cannot be put back. */
  | { kind: 'unstored'; size: number; reason: string };

/** One file a turn changed (edited, created or deleted), workspace-relative for display. */
export interface CheckpointFile {
  absolute: string;
  relative: string;
  /** The state before the turn's first change to it. */
  before: FileState;
  /** The state after the turn's last change to it (absent until that change is recorded). */
  after?: FileState;
  /**
   * Someone other than the agent changed it during the turn too (saved in the editor while a
   * command ran, say): the change cannot be told apart from the agent's, so a restore leaves it
   * as it is unless the user asks. In words.
   */
  othersChanged?: string;
}

/** What one turn changed in the workspace, recorded as it happened. */
export interface TurnCheckpoint {
  id: string;
  sessionId: string;
  /** The user message that started the turn. */
  userMessageId: string;
  createdAt: number;
  files: CheckpointFile[];
  /** What could not be recorded (storage failed, a bound was reached, ignored files a command changed); shown with the turn. */
  problems: string[];
}

/** The workspace as recorded before a command: `afterCommand` takes it back. Opaque but for what could not be recorded. */
export interface CommandBaseline {
  /** What the record before the command could not cover, in words (said on the turn). */
  readonly notes: readonly string[];
}

/** What a command changed: each file with its state before (bytes kept when they were recorded) and after. */
export interface CommandChanges {
  files: Array<{ absolute: string; relative: string; before: FileState; after: FileState }>;
  /** What could not be recorded, in words (said on the turn and in Restore). */
  notes: string[];
}

export interface CheckpointStore {
  /** The file's state now, its bytes kept (they are what a restore writes back). */
  capture(absolute: string): Promise<FileState>;
  /** The file's state now, its bytes hashed but not kept (to tell later whether it changed). */
  inspect(absolute: string): Promise<FileState>;
  /**
   * Before a command: brings the record of the folders' files up to date and makes sure each
   * file's bytes can be had if the command changes it (bounded in time; what is not covered is in
   * the baseline's notes). Version-control folders, node_modules and what git ignores are skipped.
   */
  beforeCommand(folders: readonly string[]): Promise<CommandBaseline>;
  /**
   * Brings the record of the folders' files up to date ahead of a command (a turn began and may
   * run one), in the background: a command then waits only for what is left, or what changed.
   */
  prepare(folders: readonly string[]): Promise<void>;
  /** After it: the files it changed, created or deleted, with their states before and after. */
  afterCommand(baseline: CommandBaseline): Promise<CommandChanges>;
  /** The stored bytes of `hash`; throws when they are gone. */
  read(hash: string): Promise<Uint8Array>;
  /** Writes (or rewrites) a turn's checkpoint. */
  save(checkpoint: TurnCheckpoint): Promise<void>;
  /** The session's checkpoints, oldest first. */
  load(sessionId: string): Promise<TurnCheckpoint[]>;
}

/** Where restored files go: through the editor when one is open, so it shows the restored text. */
export interface RestoreTarget {
  writeFile(absolute: string, bytes: Uint8Array): Promise<void>;
  deleteFile(absolute: string): Promise<void>;
}
