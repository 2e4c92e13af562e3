import type { Database, SqlJsStatic } from 'sql.js';
import type { DatabaseBudget } from './databaseBudget';
import { StoreLayout } from './layout';
import type { OpenDatabases } from './openDatabases';
import { newDatabase } from './sqlRows';
import { errorText } from './storeErrors';

export interface OwnFile {
  db: Database;
  dirty: boolean;
  /** Its latest content is saved: it can be closed and opened again from disk. */
  saved: boolean;
  /** Held by a caller across awaits: not closed to make room. */
  pinned?: boolean;
}

/**
 * This window's own files, held in memory while they change and saved by the flusher. A saved
 * file not used lately is closed when the open-database bound is reached, and opened again from
 * disk when it is next written.
 */
export class OwnFiles {
  private readonly files = new Map<string, OwnFile>();
  /** Files saved and then closed: their rows are on disk only. */
  private readonly closedSaved = new Set<string>();
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
      if (file.dirty || !file.saved || file.pinned) continue;
      this.files.delete(path);
      this.closedSaved.add(path);
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
    let file = this.files.get(path);
    if (file) {
      this.files.delete(path); // most recently used goes last
      this.files.set(path, file);
      return file;
    }
    let db: Database | undefined;
    if (this.closedSaved.has(path)) {
      this.reads.forget(path);
      const opened = await this.reads.open(path);
      if ('failed' in opened) throw new Error(`could not open ${path} again to write to it: ${errorText(opened.failed)}`);
      if ('db' in opened) db = opened.db; // a missing or damaged one starts anew
      this.closedSaved.delete(path);
    }
    file = this.files.get(path); // opened meanwhile by another call
    if (file) {
      if (db) this.reads.close(db);
      return file;
    }
    if (!db) {
      this.budget.acquire();
      db = newDatabase(this.SQL);
    }
    file = { db, dirty: false, saved: false };
    this.files.set(path, file);
    return file;
  }

  /** Paths of own files, in memory or saved, under `dir`. */
  pathsUnder(dir: string): string[] {
    return [...this.files.keys(), ...this.closedSaved].filter((path) => path.startsWith(dir));
  }

  /** Sessions this window has files of. */
  sessionIds(): string[] {
    return [...this.files.keys(), ...this.closedSaved].filter((path) => path.startsWith(this.layout.sessionsDir)).map(StoreLayout.sessionOf);
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
