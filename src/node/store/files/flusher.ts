import { promises as fsp } from 'fs';
import { dirname } from 'path';
import type { Database } from 'sql.js';
import { writeAtomically, type WriteFs } from './atomicFile';
import { SEGMENT_FILE } from './storeLayout';
import { exportImage, rowsWritten } from '../sql/connection';
import type { OwnFile, OwnFiles } from './ownFiles';
import type { StoreProblems } from './storeProblems';

/** A failed save is retried after this long (or the debounce, if longer). */
const RETRY_MS = 1000;

/**
 * `disk`: saves go to disk. `read-only`: the store folder can be read but not written, and
 * `in-memory`: it cannot be used at all; in both, changes stay in memory (reported once at open).
 */
export type StoreMode = 'disk' | 'read-only' | 'in-memory';

/** The clock saves are scheduled on (tests pass their own, to run a timed save when they choose). */
export interface SaveTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: SaveTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface FlusherOptions {
  fs: WriteFs;
  /** Default: the real clock. */
  timers?: SaveTimers;
  writer: string;
  debounceMs: number;
  /** A segment is sealed once its file passes this size. */
  segmentMaxBytes: number;
  mode: StoreMode;
  /**
   * Files under this folder (the session index) are saved after all others, and only when those
   * were saved: the index never lists a row its session's files do not have yet.
   */
  savedLast: string;
  /** Runs before each save's files are written (the batched fsync of stored results). */
  beforeSave?: () => Promise<void>;
  /** Runs when a sealed segment's last content is saved, before it is closed. */
  onSealed?: (path: string, db: Database) => Promise<void>;
  /** Runs once a file's content is on disk (its folder's listing changed). */
  onSaved?: (path: string) => void;
}

/** Saves changed own files after a short debounce, each atomically; a failed save is retried. */
export class Flusher {
  private timer?: unknown;
  private readonly timers: SaveTimers;
  private flushing?: Promise<void>;
  private closed = false;
  /** The last save failed: saving to make room waits for the timed retry to succeed. */
  private failing = false;

  constructor(private readonly files: OwnFiles, private readonly problems: StoreProblems, private readonly options: FlusherOptions) {
    this.timers = options.timers ?? REAL_TIMERS;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Marks `file` as changed; it is saved after the debounce. */
  touch(file: OwnFile): void {
    if (this.closed) throw new Error('the store is closed');
    file.dirty = true;
    this.schedule();
  }

  private schedule(delay = this.options.debounceMs): void {
    if (this.timer !== undefined || this.closed || this.options.mode !== 'disk') return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => undefined); // reported, and retried by writeDirty
    }, delay);
  }

  /**
   * Saves every changed file now, so that the least recently used can be closed when the
   * open-database bound is reached; says whether anything was saved. Nothing is when changes
   * cannot reach the disk (a folder that cannot be written, a save failing until its retry works).
   */
  async saveForRoom(): Promise<boolean> {
    if (this.closed || this.failing || this.options.mode !== 'disk' || !this.files.anyDirty()) return false;
    await this.flush();
    return true;
  }

  async flush(): Promise<void> {
    this.stopTimer();
    if (this.options.mode !== 'disk') return; // reported once when the store opened
    // Waits for a save in progress. If that one fails, this call still writes what is dirty now:
    // its caller asked for its own changes to be saved, not for the earlier save's outcome.
    while (this.flushing) await this.flushing.catch(() => undefined);
    this.flushing = this.writeDirty().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async writeDirty(): Promise<void> {
    let failure: unknown;
    try {
      // Results a session file lists reach the disk before that file does.
      await this.options.beforeSave?.();
    } catch (error) {
      this.failing = true;
      this.problems.writeFailed(this.options.savedLast, error);
      if (!this.closed) this.schedule(Math.max(RETRY_MS, this.options.debounceMs));
      throw error;
    }
    const entries = this.files.entries();
    const last = (path: string) => path.startsWith(this.options.savedLast);
    for (const [path, file] of [...entries.filter(([path]) => !last(path)), ...entries.filter(([path]) => last(path))]) {
      // Rows being written together (a compaction record in pieces) are saved whole.
      while (file.saveHeld) await file.saveHeld;
      if (!file.dirty || (failure !== undefined && last(path))) continue;
      file.dirty = false;
      const data = exportImage(file.db);
      const written = rowsWritten(file.db);
      // Seal a full segment now, before awaiting, so appends made meanwhile go to the next one.
      const sealing = SEGMENT_FILE.test(path) && data.length >= this.options.segmentMaxBytes;
      if (sealing) this.files.sealSegment(path);
      // Not closed while its content is on the way: reopened from disk, it would lack that content.
      file.saving = true;
      try {
        await fsp.mkdir(dirname(path), { recursive: true });
        await writeAtomically(this.options.fs, path, data, this.options.writer);
        this.options.onSaved?.(path);
      } catch (error) {
        file.dirty = true; // kept in memory; the next save retries
        failure ??= error;
        this.problems.writeFailed(path, error);
        continue;
      } finally {
        file.saving = false;
      }
      // A caller handed this file just before the export (touched, then written a few turns
      // later) wrote after it: the file is changed still, and saved again.
      if (rowsWritten(file.db) !== written && !file.dirty) {
        file.dirty = true;
        this.schedule();
      }
      if (!file.dirty) file.saved = true;
      if (sealing && !file.dirty) {
        await this.options.onSealed?.(path, file.db);
        this.files.drop(path);
      }
    }
    this.failing = failure !== undefined;
    if (failure) {
      if (!this.closed) this.schedule(Math.max(RETRY_MS, this.options.debounceMs));
      throw failure;
    }
    this.problems.writesSucceeded();
    if (this.timer !== undefined && !this.files.anyDirty()) this.stopTimer(); // a pending retry has nothing left to do
  }

  private stopTimer(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Saves what is pending, then refuses further changes. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.stopTimer();
    }
  }
}
