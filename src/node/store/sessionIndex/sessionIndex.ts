import { promises as fsp } from 'fs';
import { nextTurn } from '../../../core/nextTurn';
import { join } from 'path';
import { INDEX_FILE, SESSION_PATTERN } from '../files/storeLayout';
import { laterRow, putSessionRows, SESSION_COLUMNS, sessionRowOfValues, type SessionRow } from './sessionRowSql';
import { ownDb, type StoreParts } from '../storeParts';
import type { SessionInfo } from '../../../core/ports/sessionStore';

/** Rows read or written between two turns of the event loop (a few ms of sql.js; the first, cold, more). */
const ROWS_PER_SLICE = 250;
/** How many closed windows' index files are read as they are before they are merged into one. */
export const ABSORB_INDEX_MIN_FILES = 8;

interface IndexFile {
  mtimeMs: number;
  size: number;
  rows: SessionRow[];
}

/**
 * The session list, kept in `index/` so that listing never opens every session's files. Each
 * window writes only its own index files: `<writer>.delta.sqlite` takes every session row it
 * writes (create, rename, touch, delete), `<writer>.base.sqlite` the rows merged at open from the
 * index files of closed windows, and rows rebuilt from session folders the index did not know
 * (an older Tally, a lost write). Reads merge every writer's files like session rows: latest
 * write wins, a deletion sticks. A session folder is listed only while it exists.
 *
 * A window reads each other window's index file once while it is unchanged, for the listing and
 * the merge of closed windows' files alike, in slices with turns of the event loop between them.
 * Closed windows' files are merged into this window's only once there are several of them: a
 * window restarted now and then reads the list its predecessor left as it is, rather than
 * rewriting ten thousand rows to its own file.
 */
export class SessionIndex {
  private readonly others = new Map<string, IndexFile>();
  private readonly ownRows = new Map<string, SessionRow>();
  /** Folders found to hold no session row (checked once per window). */
  private readonly notSessions = new Set<string>();
  private merged?: Map<string, SessionRow>;
  /** Other windows' index files being read now: the listing and the merge share one read. */
  private readonly reading = new Map<string, Promise<IndexFile | undefined>>();

  constructor(private readonly parts: StoreParts) {}

  /** Records a row this window wrote (or rebuilt) in its own index file. */
  note(row: SessionRow, rebuilt = false): Promise<void> {
    return this.noteAll([row], rebuilt);
  }

  /** Records rows in one transaction (thousands when merging closed windows' lists). */
  private async noteAll(list: SessionRow[], rebuilt: boolean): Promise<void> {
    const { layout } = this.parts;
    const db = await ownDb(this.parts, rebuilt ? layout.indexBasePath : layout.indexDeltaPath);
    const kept = list.map((row) => laterRow(this.ownRows.get(row.info.id), row));
    for (const row of kept) {
      this.ownRows.set(row.info.id, row);
      if (this.merged) this.merged.set(row.info.id, laterRow(this.merged.get(row.info.id), row));
    }
    for (let at = 0; at < kept.length; at += ROWS_PER_SLICE) {
      if (at > 0) await nextTurn();
      db.run('BEGIN');
      try {
        putSessionRows(db, kept.slice(at, at + ROWS_PER_SLICE));
      } finally {
        db.run('COMMIT');
      }
    }
  }

  /** The indexed row of a session, when the index has been read in this window. */
  known(sessionId: string): SessionRow | undefined {
    return this.merged?.get(sessionId);
  }

  /** Another window's index file as it is now on disk: read once while it does not change. */
  private indexFile(path: string): Promise<IndexFile | undefined> {
    let pending = this.reading.get(path);
    if (!pending) {
      pending = (async () => {
        const stat = await fsp.stat(path).catch(() => undefined);
        if (!stat) return undefined;
        const known = this.others.get(path);
        if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) return known;
        const read = await this.readIndexFile(path);
        if (!read) return undefined;
        const file = { mtimeMs: stat.mtimeMs, size: stat.size, rows: read };
        this.others.set(path, file);
        return file;
      })().finally(() => this.reading.delete(path));
      this.reading.set(path, pending);
    }
    return pending;
  }

  /**
   * The rows of an index file, from one opening of it (a consistent copy) and one pass of one
   * statement over its rows, a slice at a time: the copy is this read's alone, so the statement
   * stays valid across the turns of the event loop between slices.
   */
  private async readIndexFile(path: string): Promise<SessionRow[] | undefined> {
    const opened = await this.parts.reads.open(path);
    if (!('db' in opened)) return undefined;
    const statement = opened.db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY rowid`);
    try {
      const out: SessionRow[] = [];
      for (;;) {
        await nextTurn(); // opening and checking the file was a slice of its own
        for (let n = 0; n < ROWS_PER_SLICE; n++) {
          if (!statement.step()) return out;
          out.push(sessionRowOfValues(statement.get()));
        }
      }
    } finally {
      statement.free();
      this.parts.reads.close(opened.db);
    }
  }

  /** Re-reads the index files of other windows that changed since the last listing. */
  private async refresh(): Promise<Map<string, SessionRow>> {
    const { layout } = this.parts;
    const names = await fsp.readdir(layout.indexDir).catch(() => [] as string[]);
    const present = new Set<string>();
    for (const name of names) {
      const writer = INDEX_FILE.exec(name)?.[1];
      if (writer === undefined || writer === layout.writer) continue;
      const path = join(layout.indexDir, name);
      present.add(path);
      await this.indexFile(path);
    }
    for (const path of this.others.keys()) if (!present.has(path)) this.others.delete(path);
    const merged = new Map<string, SessionRow>();
    for (const file of this.others.values()) for (const row of file.rows) merged.set(row.info.id, laterRow(merged.get(row.info.id), row));
    for (const row of this.ownRows.values()) merged.set(row.info.id, laterRow(merged.get(row.info.id), row));
    this.merged = merged;
    return merged;
  }

  /**
   * The sessions on disk (and this window's unsaved ones). A session folder the index does not
   * know is read once from its own files and added to the index, so a missing or stale index
   * mends itself; `readRow` is called for those only.
   */
  async list(readRow: (sessionId: string) => Promise<SessionRow | undefined>): Promise<SessionInfo[]> {
    const merged = await this.refresh();
    const folders = await fsp.readdir(this.parts.layout.sessionsDir).catch(() => [] as string[]);
    const out: SessionInfo[] = [];
    let seen = 0;
    for (const id of new Set([...folders, ...this.parts.own.sessionIds()])) {
      if (++seen % ROWS_PER_SLICE === 0) await nextTurn();
      if (!SESSION_PATTERN.test(id)) continue;
      let row = merged.get(id);
      if (!row && !this.notSessions.has(id)) {
        row = await readRow(id);
        if (row) await this.note(row, true);
        else this.notSessions.add(id);
      }
      if (row && !row.deleted) out.push(row.info);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /**
   * Once closed windows have left ABSORB_INDEX_MIN_FILES index files or more, merges them into
   * this window's base file, saves it, and only then removes them, so the index stays a few files
   * however often windows restart. A file that cannot be read (damaged, newer schema) is left alone.
   */
  async absorbClosed(live: Set<string>): Promise<void> {
    const { layout } = this.parts;
    const names = await fsp.readdir(layout.indexDir).catch(() => [] as string[]);
    const closed = names.sort().filter((name) => {
      const writer = INDEX_FILE.exec(name)?.[1];
      return writer !== undefined && writer !== layout.writer && !live.has(writer);
    });
    if (closed.length < ABSORB_INDEX_MIN_FILES) return;
    const absorbed: string[] = [];
    for (const name of closed) {
      const path = join(layout.indexDir, name);
      const read = await this.indexFile(path);
      if (!read) continue;
      await this.noteAll(read.rows, true);
      absorbed.push(path);
    }
    if (absorbed.length === 0) return;
    try {
      await this.parts.flusher.flush();
    } catch {
      return; // reported by the flush; the old files stay, so nothing is lost
    }
    for (const path of absorbed) await fsp.rm(path, { force: true }).catch(() => undefined);
  }
}
