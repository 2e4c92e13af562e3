import type { Database, SqlJsStatic } from 'sql.js';
import type { DatabaseBudget } from './databaseBudget';
import { StoreLayout } from './storeLayout';
import type { OpenDatabases } from './openDatabases';
import { newDatabase } from '../sql/connection';
import { errorText } from './storeErrors';

export interface OwnFile {
  db: Database;
  dirty: boolean;
  /** Its latest content is saved: it can be closed and opened again from disk. */
  saved: boolean;
  /** A save of it is writing its content now: not closed until that content is on disk. */
  saving?: boolean;
  /** Held by a caller across awaits: not closed to make room. */
  pinned?: boolean;
  /** Rows that must reach the disk together are being written: the file is saved once this settles. */
  saveHeld?: Promise<void>;
}

/**
 * This window's own files, held in memory while they change and saved by the flusher. A saved
 * file not used lately is closed when the open-database bound is reached, and opened again from
 * disk when it is next written.
 */
export class OwnFiles {
  private readonly files = new Map<string, OwnFile>();
  /**
   * Files saved and then closed: their rows are on disk only. Each closing gets a new number, so
   * that a call reopening a file can tell whether it was reopened and closed again meanwhile.
   */
  private readonly closedSaved = new Map<string, number>();
  private closings = 0;
  private readonly segments = new Map<string, number>();

  constructor(
    private readonly SQL: SqlJsStatic,
    private readonly budget: DatabaseBudget,
    private readonly reads: OpenDatabases,
    private readonly layout: StoreLayout,
  ) {
    budget.addEvictor(() => this.evictOldest());
  }

  private evictOldest(): boolean {
    for (const [path, file] of this.files) {
      if (file.dirty || !file.saved || file.saving || file.pinned) continue;
      this.files.delete(path);
      this.closedSaved.set(path, ++this.closings);
      file.db.close();
      this.budget.release();
      return true;
    }
    return false;
  }

  /** The file at `path` if it is open in memory (its rows are newer than the disk's). */
  peek(path: string): Database | undefined {
    return this.files.get(path)?.db;
  }

  /** The own file at `path`, opened again from disk if it was closed, or new. */
  async get(path: string): Promise<OwnFile> {
    for (;;) {
      const held = this.files.get(path);
      if (held) {
        this.files.delete(path); // most recently used goes last
        this.files.set(path, held);
        return held;
      }
      const closing = this.closedSaved.get(path);
      const db = (closing !== undefined && (await this.reopen(path))) || (await this.created());
      // Opening may wait for room: another call may have opened the file, or saved and closed
      // it, meanwhile. Then this copy is stale, and the file is taken as that call left it.
      if (this.files.has(path) || this.closedSaved.get(path) !== closing) {
        this.reads.close(db);
        continue;
      }
      this.closedSaved.delete(path);
      const file: OwnFile = { db, dirty: false, saved: false };
      this.files.set(path, file);
      return file;
    }
  }

  /** A saved and closed file, from disk; undefined when it is missing or damaged (it starts anew). */
  private async reopen(path: string): Promise<Database | undefined> {
    this.reads.forget(path);
    const opened = await this.reads.open(path);
    if ('failed' in opened) throw new Error(`could not open ${path} again to write to it: ${errorText(opened.failed)}`);
    return 'db' in opened ? opened.db : undefined;
  }

  private async created(): Promise<Database> {
    await this.budget.acquire();
    return newDatabase(this.SQL);
  }

  /**
   * Holds `file` open and unsaved until the returned function is called: rows written meanwhile,
   * across turns of the event loop, reach the disk in one save (or none). Holds nest.
   */
  holdSaves(file: OwnFile): () => void {
    const before = file.saveHeld;
    const wasPinned = file.pinned;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    file.pinned = true;
    file.saveHeld = before ? Promise.all([before, held]).then(() => undefined) : held;
    const mine = file.saveHeld;
    return () => {
      release();
      if (file.saveHeld === mine) {
        file.saveHeld = undefined;
        file.pinned = wasPinned;
      }
    };
  }

  /** Paths of own files, in memory or saved, under `dir`. */
  pathsUnder(dir: string): string[] {
    return [...this.files.keys(), ...this.closedSaved.keys()].filter((path) => path.startsWith(dir));
  }

  /** Sessions this window has files of. */
  sessionIds(): string[] {
    return [...this.files.keys(), ...this.closedSaved.keys()].filter((path) => path.startsWith(this.layout.sessionsDir)).map(StoreLayout.sessionOf);
  }

  entries(): Array<[string, OwnFile]> {
    return [...this.files];
  }

  anyDirty(): boolean {
    return [...this.files.values()].some((f) => f.dirty);
  }

  /** The segment new rows of `sessionId` go to. */
  segmentPath(sessionId: string): string {
    const n = this.segments.get(sessionId) ?? 0;
    this.segments.set(sessionId, n);
    return this.layout.segmentPath(sessionId, n);
  }

  /** Starts a new segment when `path` is the current one (called before it is written). */
  sealSegment(path: string): void {
    const segment = StoreLayout.segmentOf(path);
    if (segment && this.segments.get(segment.sessionId) === segment.n) this.segments.set(segment.sessionId, segment.n + 1);
  }

  /** A sealed segment, saved: it is never written again, so it is closed (unless held by a merge). */
  drop(path: string): void {
    const file = this.files.get(path);
    if (!file || file.pinned) return;
    this.files.delete(path);
    file.db.close();
    this.budget.release();
  }

  closeAll(): void {
    for (const [path, file] of [...this.files]) {
      this.files.delete(path);
      file.db.close();
      this.budget.release();
    }
  }
}
