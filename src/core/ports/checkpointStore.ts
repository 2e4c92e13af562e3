/**
 * Checkpoints: what a turn's file changes need to be undone. Kept in Tally's own storage (never the
 * user's git history or the workspace): each file's bytes once, content-addressed, and one record
 * per turn listing the files the turn changed with their state before and after.
 */

/** A file's state at one moment, as a checkpoint keeps it. */
export type FileState =
  | { kind: 'absent' }
  | { kind: 'stored'; hash: string; size: number }
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
}

/** What one turn changed in the workspace, recorded as it happened. */
export interface TurnCheckpoint {
  id: string;
  sessionId: string;
  /** The user message that started the turn. */
  userMessageId: string;
  createdAt: number;
  files: CheckpointFile[];
  /** What could not be recorded (storage failed, a command's listing stopped early); shown with the turn. */
  problems: string[];
}

/** A file found by a workspace listing, with what tells a change: size and modification time. */
export interface ListedFile {
  absolute: string;
  relative: string;
  size: number;
  mtimeMs: number;
  /**
   * Its time was so recent when listed that a change in the same clock step would leave it as it
   * is: whether it changed is told by its bytes, not by its size and time.
   */
  timeUnsure?: boolean;
}

/** The workspace's files, listed with bounds: `complete` is false when a bound stopped the listing (`note` says which). */
export interface FolderListing {
  files: ListedFile[];
  complete: boolean;
  note?: string;
}

export interface CheckpointStore {
  /**
   * The file's state now; its bytes are stored when at most the size cap. A file unchanged since
   * the last capture is not read again (unless its time was too recent then to show a later
   * change); `listed`: its size and time from a listing just made, so an unchanged file costs no
   * file-system call at all.
   */
  capture(absolute: string, listed?: { size: number; mtimeMs: number }): Promise<FileState>;
  /** The files under the folders, bounded in count and time; version-control folders, node_modules and names the root .gitignore lists are skipped. */
  list(folders: readonly string[]): Promise<FolderListing>;
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
