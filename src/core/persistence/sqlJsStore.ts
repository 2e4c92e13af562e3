/**
 * Tally's store on sql.js (F24).
 *
 * Layout under the storage folder:
 *   sessions/<sessionId>/<writer>.info.sqlite   session row (title, times) — tiny, rewritten on change
 *   sessions/<sessionId>/<writer>.snap.sqlite   latest snapshot — bounded by the window size
 *   sessions/<sessionId>/<writer>.seg<N>.sqlite messages, compaction events, turn usage, blob index —
 *                                               append segments, sealed (never rewritten) past a size cap
 *   blobs/<refId>.sqlite                        one offloaded tool result each, written once
 *
 * Every store instance ("writer", one per VS Code window) writes only files named with its own id,
 * so two windows never overwrite each other; reads merge every writer's files. sql.js rewrites a
 * whole file on save, so keeping each rewritten file small keeps the cost of saving one turn
 * independent of how much is stored. Each save is atomic (temp file, fsync, rename).
 */
import { randomBytes } from 'crypto';
import { promises as fsp } from 'fs';
import { basename, dirname, join } from 'path';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { newId } from '../model/ids';
import { nextTurn } from '../nextTurn';
import { absorbRows } from './absorbRows';
import { liveWriters, removeStaleHeartbeats, WriterHeartbeat } from './writerLiveness';
import { scanOutput } from '../toolOutput/scan';
import type { Message } from '../model/message';
import { nodeWriteFs, writeAtomically, type WriteFs } from './atomicFile';
import { migrationsFrom, SCHEMA_VERSION } from './schema';
import { sqlRuntime } from './sqlRuntime';
import type {
  BlobInfo,
  BlobSlice,
  CompactionEventRecord,
  SessionInfo,
  SessionSnapshot,
  SessionStore,
  StoreProblem,
  TurnUsageRecord,
} from './types';

export interface StoreOptions {
  wasmPath?: string;
  debounceMs?: number;
  now?: () => number;
  log?: (line: string) => void;
  /** A segment is sealed once its file passes this size (default 2 MiB). */
  segmentMaxBytes?: number;
  fs?: WriteFs;
}

interface OwnFile {
  db: Database;
  dirty: boolean;
}

interface ReadFile {
  mtimeMs: number;
  size: number;
  db: Database;
}

const REF_PATTERN = /^[a-z0-9]{6,64}$/;
const SESSION_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;
/** How many problems `problems` keeps (the oldest are dropped). */
export const MAX_PROBLEMS = 200;
/** A failed save is retried after this long (or the debounce, if longer). */
const RETRY_MS = 1000;
const RECOVERED_TITLE_CHARS = 60;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function rows(db: Database, sql: string, params: SqlValue[] = []): Array<Record<string, SqlValue>> {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const out: Array<Record<string, SqlValue>> = [];
    while (statement.step()) out.push(statement.getAsObject());
    return out;
  } finally {
    statement.free();
  }
}

/** Offloaded results larger than this are stored as parts of this size, one file each. */
export const BLOB_PART_BYTES = 2 * 1024 * 1024;

/** A session file of some writer: `<writer>.info.sqlite`, `<writer>.snap.sqlite`, `<writer>.seg<N>.sqlite`. */
const WRITER_FILE = /^(w[a-z0-9]+)\.(?:info|snap|seg\d+)\.sqlite$/;
/** Files of closed windows a session must hold before they are merged (three windows' worth). */
export const ABSORB_MIN_FILES = 9;

export class SqlJsStore implements SessionStore {
  readonly writer = `w${process.pid.toString(36)}${randomBytes(4).toString('hex')}`;
  private readonly own = new Map<string, OwnFile>();
  private readonly readCache = new Map<string, ReadFile>();
  private readonly segment = new Map<string, number>();
  private readonly blobIndex = new Map<string, BlobInfo>();
  private readonly reported = new Set<string>();
  /** Files set aside in this run, and where they went. */
  private readonly setAsideTo = new Map<string, string>();
  /** The write failures reported since the last save that wrote everything (reported once each). */
  private readonly failingWrites = new Set<string>();
  private suppressedFailures = 0;
  private readonly recovering = new Map<string, Promise<SessionInfo | undefined>>();
  private readonly problemList: StoreProblem[] = [];
  private readonly heartbeat: WriterHeartbeat;
  /** Sessions whose closed windows' files this store has already merged (or checked). */
  private readonly absorbedSessions = new Set<string>();
  private readonly listeners = new Set<(p: StoreProblem) => void>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private writeSeq = 0;
  private closed = false;
  private readonly fs: WriteFs;
  private readonly now: () => number;
  private readonly debounceMs: number;
  private readonly segmentMax: number;

  constructor(readonly root: string, private readonly SQL: SqlJsStatic, private readonly options: StoreOptions = {}) {
    this.heartbeat = new WriterHeartbeat(root, this.writer);
    this.fs = options.fs ?? nodeWriteFs;
    this.now = options.now ?? Date.now;
    this.debounceMs = options.debounceMs ?? 250;
    this.segmentMax = options.segmentMaxBytes ?? 2 * 1024 * 1024;
  }

  get problems(): readonly StoreProblem[] {
    return this.problemList;
  }

  onProblem(listener: (problem: StoreProblem) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private report(problem: Omit<StoreProblem, 'at'>): void {
    const full = { ...problem, at: this.now() };
    this.problemList.push(full);
    if (this.problemList.length > MAX_PROBLEMS) this.problemList.splice(0, this.problemList.length - MAX_PROBLEMS);
    this.options.log?.(`store ${problem.kind}: ${problem.file}: ${problem.message}`);
    for (const listener of this.listeners) listener(full);
  }

  /**
   * A failed write is reported once per streak: while saves keep failing the same way (a full disk
   * makes every retry fail), the user hears about it once, not on every retry. A save that writes
   * everything ends the streak, so a later failure is reported again.
   */
  private reportWriteFailure(file: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const key = typeof code === 'string' ? code : errorText(error);
    if (this.failingWrites.has(key)) {
      this.suppressedFailures++;
      return;
    }
    this.failingWrites.add(key);
    this.report({ file, kind: 'write-failed', message: errorText(error) });
  }

  private writesSucceeded(): void {
    if (this.failingWrites.size === 0) return;
    this.options.log?.(`store: saving works again (${this.suppressedFailures} repeated failures were not reported again)`);
    this.failingWrites.clear();
    this.suppressedFailures = 0;
  }

  private stamp(): number {
    return this.now() * 1000 + (this.writeSeq++ % 1000);
  }

  private sessionDir(sessionId: string): string {
    if (!SESSION_PATTERN.test(sessionId)) throw new Error(`invalid session id "${sessionId}"`);
    return join(this.root, 'sessions', sessionId);
  }

  // ---- files -------------------------------------------------------------------------------

  private newDatabase(): Database {
    const db = new this.SQL.Database();
    for (const m of migrationsFrom(0)) db.run(m.sql);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    return db;
  }

  private ownFile(path: string): OwnFile {
    let file = this.own.get(path);
    if (!file) {
      file = { db: this.newDatabase(), dirty: false };
      this.own.set(path, file);
    }
    return file;
  }

  private touch(file: OwnFile): void {
    if (this.closed) throw new Error('the store is closed');
    file.dirty = true;
    this.scheduleFlush();
  }

  private infoPath(sessionId: string): string {
    return join(this.sessionDir(sessionId), `${this.writer}.info.sqlite`);
  }

  private snapshotPath(sessionId: string): string {
    return join(this.sessionDir(sessionId), `${this.writer}.snap.sqlite`);
  }

  /** This writer's database at `path`, marked as changed. */
  private ownDb(path: string): Database {
    const file = this.ownFile(path);
    this.touch(file);
    return file.db;
  }

  private segmentPath(sessionId: string): string {
    const n = this.segment.get(sessionId) ?? 0;
    this.segment.set(sessionId, n);
    return join(this.sessionDir(sessionId), `${this.writer}.seg${n}.sqlite`);
  }

  /** Opens another writer's (or a sealed) file read-only, reloading it when it changed on disk. */
  private async readFile(path: string): Promise<Database | undefined> {
    const own = this.own.get(path);
    if (own) return own.db;
    let stat;
    try {
      stat = await fsp.stat(path);
    } catch {
      return undefined;
    }
    const cached = this.readCache.get(path);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.db;
    let db: Database | undefined;
    try {
      const bytes = await fsp.readFile(path);
      db = new this.SQL.Database(bytes);
      const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
      if (version > SCHEMA_VERSION) {
        db.close();
        if (!this.reported.has(path)) {
          this.reported.add(path);
          this.report({ file: path, kind: 'newer-schema', message: `schema version ${version} is newer than ${SCHEMA_VERSION}; left untouched` });
        }
        return undefined;
      }
      // Reads every page of the file's b-trees (about 1 ms per 2 MiB): a damaged page is found
      // now, where the file can be set aside, not later in the middle of a query.
      const check = String(db.exec('PRAGMA quick_check')[0]?.values[0]?.[0] ?? 'no result');
      if (check !== 'ok') throw new Error(`integrity check failed: ${check}`);
      for (const m of migrationsFrom(version)) db.run(m.sql);
    } catch (error) {
      db?.close();
      await this.setAside(path, error);
      return undefined;
    }
    cached?.db.close();
    this.readCache.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, db });
    return db;
  }

  private async setAside(path: string, error: unknown): Promise<void> {
    const movedTo = `${path}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      await fsp.rename(path, movedTo);
      this.setAsideTo.set(path, movedTo);
      this.report({ file: path, kind: 'corrupt', message: errorText(error), movedTo });
    } catch {
      this.report({ file: path, kind: 'read-failed', message: errorText(error) });
    }
  }

  /** Where `path` was set aside as damaged (in this run or an earlier one), if it was. */
  private async setAsideCopy(path: string): Promise<string | undefined> {
    const known = this.setAsideTo.get(path);
    if (known) return known;
    const prefix = `${basename(path)}.corrupt-`;
    const names = await fsp.readdir(dirname(path)).catch(() => [] as string[]);
    const found = names.filter((n) => n.startsWith(prefix)).sort().pop();
    return found && join(dirname(path), found);
  }

  /** Why a stored result's file gave nothing, or undefined when it simply does not exist. */
  private async unreadableBlob(refId: string, path: string): Promise<Error | undefined> {
    const movedTo = await this.setAsideCopy(path);
    if (movedTo) return new Error(`the stored result "${refId}" could not be read: its file was damaged and has been set aside (${movedTo})`);
    const present = await fsp.stat(path).then(() => true, () => false);
    if (!present) return undefined;
    const why = this.reported.has(path) ? 'it was written by a newer version of Tally' : 'its file could not be opened or is incomplete';
    return new Error(`the stored result "${refId}" could not be read: ${why}`);
  }

  private async filesOf(sessionId: string, suffix: RegExp): Promise<string[]> {
    const dir = this.sessionDir(sessionId);
    let names: string[] = [];
    try {
      names = await fsp.readdir(dir);
    } catch {
      names = [];
    }
    const paths = new Set(names.filter((n) => suffix.test(n)).map((n) => join(dir, n)));
    for (const path of this.own.keys()) if (path.startsWith(dir) && suffix.test(path)) paths.add(path);
    return [...paths].sort();
  }

  private async sessionDbs(sessionId: string, suffix: RegExp): Promise<Database[]> {
    const dbs: Database[] = [];
    for (const path of await this.filesOf(sessionId, suffix)) {
      const db = await this.readFile(path);
      if (db) dbs.push(db);
    }
    return dbs;
  }

  // ---- flushing ----------------------------------------------------------------------------

  private scheduleFlush(delay = this.debounceMs): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().catch(() => undefined); // reported, and retried by writeDirty
    }, delay);
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Waits for a save in progress. If that one fails, this call still writes what is dirty now:
    // its caller asked for its own changes to be saved, not for the earlier save's outcome.
    while (this.flushing) await this.flushing.catch(() => undefined);
    this.flushing = this.writeDirty().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async writeDirty(): Promise<void> {
    let failure: unknown;
    for (const [path, file] of this.own) {
      if (!file.dirty) continue;
      file.dirty = false;
      const data = file.db.export();
      // Seal a full segment now, before awaiting, so appends made meanwhile go to the next one.
      const segment = /[\\/]([^\\/]+)[\\/][^\\/]+\.seg(\d+)\.sqlite$/.exec(path);
      const sealing = segment !== null && data.length >= this.segmentMax;
      if (segment && sealing && this.segment.get(segment[1]) === Number(segment[2])) this.segment.set(segment[1], Number(segment[2]) + 1);
      try {
        await fsp.mkdir(join(path, '..'), { recursive: true });
        await writeAtomically(this.fs, path, data, this.writer);
      } catch (error) {
        file.dirty = true; // kept in memory; the next save retries
        failure ??= error;
        this.reportWriteFailure(path, error);
        continue;
      }
      if (sealing && !file.dirty) {
        this.own.delete(path);
        file.db.close();
      }
    }
    if (failure) {
      if (!this.closed) this.scheduleFlush(Math.max(RETRY_MS, this.debounceMs));
      throw failure;
    }
    this.writesSucceeded();
    if (this.timer && ![...this.own.values()].some((f) => f.dirty)) {
      clearTimeout(this.timer); // a pending retry has nothing left to do
      this.timer = undefined;
    }
  }

  /** Marks this writer as alive for other windows (see writerLiveness.ts). */
  startHeartbeat(): Promise<void> {
    return this.heartbeat.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.heartbeat.stop().catch(() => undefined);
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      for (const file of this.own.values()) file.db.close();
      for (const file of this.readCache.values()) file.db.close();
      this.own.clear();
      this.readCache.clear();
    }
  }

  /**
   * Removes what a crashed writer left behind (older than a minute): temp files, and the parts of
   * a large result whose main file was never written (the result was never referenced).
   */
  async cleanTempFiles(): Promise<void> {
    const sessions = join(this.root, 'sessions');
    const blobs = join(this.root, 'blobs');
    const dirs = await fsp.readdir(sessions).catch(() => [] as string[]);
    for (const dir of [...dirs.map((d) => join(sessions, d)), blobs]) {
      const names = await fsp.readdir(dir).catch(() => [] as string[]);
      const present = new Set(names);
      for (const name of names) {
        const part = /^([a-z0-9]+)\.p\d+\.sqlite$/.exec(name);
        // Parts whose main file was set aside as damaged are kept with it, for inspection.
        const orphanPart = dir === blobs && part !== null && !present.has(`${part[1]}.sqlite`) && !names.some((n) => n.startsWith(`${part[1]}.sqlite.corrupt-`));
        if (!name.includes('.tmp-') && !orphanPart) continue;
        const path = join(dir, name);
        const stat = await fsp.stat(path).catch(() => undefined);
        if (stat && this.now() - stat.mtimeMs > 60_000) await fsp.rm(path, { force: true });
      }
    }
    await removeStaleHeartbeats(this.root, this.now());
  }

  // ---- sessions ----------------------------------------------------------------------------

  private writeSessionRow(info: SessionInfo, deleted = false, writtenAt = this.stamp()): void {
    const file = this.ownFile(this.infoPath(info.id));
    file.db.run('INSERT OR REPLACE INTO sessions (id, title, created_at, updated_at, model, origin, deleted, written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      info.id,
      info.title,
      info.createdAt,
      info.updatedAt,
      info.model ?? null,
      info.origin ?? null,
      deleted ? 1 : 0,
      writtenAt,
    ]);
    this.touch(file);
  }

  async createSession(init: Partial<SessionInfo> & { title: string }): Promise<SessionInfo> {
    const now = this.now();
    const info: SessionInfo = { id: init.id ?? newId('s'), title: init.title, createdAt: init.createdAt ?? now, updatedAt: init.updatedAt ?? now, model: init.model, origin: init.origin };
    this.writeSessionRow(info);
    return info;
  }

  private async sessionRow(sessionId: string): Promise<{ info: SessionInfo; deleted: boolean } | undefined> {
    let best: { info: SessionInfo; deleted: boolean; written: number } | undefined;
    let deleted = false;
    for (const db of await this.sessionDbs(sessionId, /\.info\.sqlite$/)) {
      for (const r of rows(db, 'SELECT * FROM sessions WHERE id = ?', [sessionId])) {
        if (r.deleted) deleted = true;
        const written = Number(r.written_at);
        if (!best || written > best.written) {
          best = {
            written,
            deleted: Boolean(r.deleted),
            info: { id: String(r.id), title: String(r.title), createdAt: Number(r.created_at), updatedAt: Number(r.updated_at), model: r.model === null ? undefined : String(r.model), origin: r.origin === null ? undefined : String(r.origin) },
          };
        }
      }
    }
    if (best) return { info: best.info, deleted };
    const recovered = await this.recoverSession(sessionId);
    return recovered && { info: recovered, deleted: false };
  }

  /**
   * A session whose rows are all unreadable (its info file was damaged and set aside) would vanish
   * from the list although its messages are intact in the segment files. Its row is rebuilt from
   * those messages and saved as this writer's info file; any row written by the session's own
   * writers still wins (the rebuilt row is stamped 0).
   */
  private recoverSession(sessionId: string): Promise<SessionInfo | undefined> {
    let pending = this.recovering.get(sessionId);
    if (!pending) {
      pending = this.rebuildSessionRow(sessionId).finally(() => this.recovering.delete(sessionId));
      this.recovering.set(sessionId, pending);
    }
    return pending;
  }

  private async rebuildSessionRow(sessionId: string): Promise<SessionInfo | undefined> {
    if (this.closed) return undefined;
    const transcript = await this.loadTranscript(sessionId);
    if (transcript.length === 0 || this.closed) return undefined;
    const first = transcript.find((m) => m.role === 'user' && m.kind === 'user' && m.content.trim() !== '');
    const line = first?.content.trim().split(/\r?\n/)[0].trim() ?? '';
    const title = line === '' ? 'Recovered session' : line.length > RECOVERED_TITLE_CHARS ? `${line.slice(0, RECOVERED_TITLE_CHARS - 1).trimEnd()}…` : line;
    const times = transcript.map((m) => m.createdAt).filter((t) => Number.isFinite(t));
    const now = this.now();
    const info: SessionInfo = { id: sessionId, title, createdAt: times.length ? Math.min(...times) : now, updatedAt: times.length ? Math.max(...times) : now };
    this.writeSessionRow(info, false, 0);
    this.report({
      file: this.infoPath(sessionId),
      kind: 'recovered',
      message: `session ${sessionId} had no readable session row; rebuilt it from its ${transcript.length} messages as "${title}"`,
    });
    return info;
  }

  async getSession(id: string): Promise<SessionInfo | undefined> {
    if (!SESSION_PATTERN.test(id)) return undefined;
    const row = await this.sessionRow(id);
    return row && !row.deleted ? row.info : undefined;
  }

  async updateSession(id: string, patch: Partial<Omit<SessionInfo, 'id'>>): Promise<void> {
    const current = await this.getSession(id);
    if (!current) throw new Error(`unknown session "${id}"`);
    this.writeSessionRow({ ...current, ...patch, id, updatedAt: patch.updatedAt ?? this.now() });
  }

  async listSessions(): Promise<SessionInfo[]> {
    const ids = new Set(await fsp.readdir(join(this.root, 'sessions')).catch(() => [] as string[]));
    for (const path of this.own.keys()) ids.add(path.split(/[\\/]/).slice(-2)[0]);
    const out: SessionInfo[] = [];
    for (const id of ids) {
      if (!SESSION_PATTERN.test(id)) continue;
      const info = await this.getSession(id);
      if (info) out.push(info);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async deleteSession(id: string): Promise<void> {
    const current = await this.sessionRow(id);
    if (current) this.writeSessionRow({ ...current.info, updatedAt: this.now() }, true);
  }

  // ---- transcript --------------------------------------------------------------------------

  async putMessages(sessionId: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    const file = this.ownFile(this.segmentPath(sessionId));
    for (const m of messages) {
      file.db.run('INSERT OR REPLACE INTO messages (id, session_id, created_at, written_at, body) VALUES (?, ?, ?, ?, ?)', [m.id, sessionId, m.createdAt, this.stamp(), JSON.stringify(m)]);
    }
    this.touch(file);
  }

  /**
   * Every window start is a new writer with files of its own, so a session opened across many
   * restarts gathers files. When a session holds at least ABSORB_MIN_FILES files of writers that
   * are gone (no fresh heartbeat), their rows move into this writer's files and, once those are
   * saved, the old files are removed. A crash in between leaves duplicates, which reads merge.
   */
  private async absorbClosedWriters(sessionId: string): Promise<void> {
    if (this.absorbedSessions.has(sessionId)) return;
    this.absorbedSessions.add(sessionId);
    const dir = this.sessionDir(sessionId);
    const live = await liveWriters(this.root, this.now());
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const closed = names.filter((name) => {
      const writer = WRITER_FILE.exec(name)?.[1];
      return writer !== undefined && writer !== this.writer && !live.has(writer);
    });
    if (closed.length < ABSORB_MIN_FILES) return;
    const targets = {
      info: () => this.ownDb(this.infoPath(sessionId)),
      segment: () => this.ownDb(this.segmentPath(sessionId)),
      snapshot: () => this.ownDb(this.snapshotPath(sessionId)),
    };
    const absorbed: string[] = [];
    for (const name of closed.sort()) {
      const path = join(dir, name);
      const db = await this.readFile(path);
      if (!db) continue; // damaged (set aside) or from a newer schema (left alone)
      absorbRows(db, targets);
      absorbed.push(path);
      await nextTurn();
    }
    if (absorbed.length === 0) return;
    try {
      await this.flush();
    } catch {
      return; // reported by the flush; the old files stay, so nothing is lost
    }
    for (const path of absorbed) {
      this.readCache.get(path)?.db.close();
      this.readCache.delete(path);
      await fsp.rm(path, { force: true });
    }
    this.options.log?.(`store: merged ${absorbed.length} files of closed windows into ${this.writer} for session ${sessionId}`);
  }

  async loadTranscript(sessionId: string): Promise<Message[]> {
    await this.absorbClosedWriters(sessionId);
    const latest = new Map<string, { written: number; message: Message }>();
    for (const db of await this.sessionDbs(sessionId, /\.seg\d+\.sqlite$/)) {
      for (const r of rows(db, 'SELECT id, written_at, body FROM messages WHERE session_id = ?', [sessionId])) {
        const written = Number(r.written_at);
        const previous = latest.get(String(r.id));
        if (previous && previous.written >= written) continue;
        try {
          latest.set(String(r.id), { written, message: JSON.parse(String(r.body)) as Message });
        } catch {
          // A row that does not parse is skipped; the rest of the transcript still loads.
        }
      }
    }
    return [...latest.values()].map((v) => v.message).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  // ---- blobs -------------------------------------------------------------------------------

  private blobPath(refId: string): string {
    if (!REF_PATTERN.test(refId)) throw new Error(`invalid ref_id "${refId}"`);
    return join(this.root, 'blobs', `${refId}.sqlite`);
  }

  private blobPartPath(refId: string, part: number): string {
    if (!REF_PATTERN.test(refId)) throw new Error(`invalid ref_id "${refId}"`);
    return join(this.root, 'blobs', `${refId}.p${part}.sqlite`);
  }

  /** Builds a one-row database and writes it atomically; the sql.js work is bounded by the row. */
  private async writeOnce(path: string, fill: (db: Database) => void): Promise<void> {
    const db = this.newDatabase();
    let data: Uint8Array;
    try {
      fill(db);
      data = db.export();
    } finally {
      db.close();
    }
    await writeAtomically(this.fs, path, data, this.writer);
  }

  async putBlob(sessionId: string, blob: { toolName: string; toolCallId?: string; content: Uint8Array; measured?: { sha256: string; lineCount: number } }): Promise<BlobInfo> {
    const measured = blob.measured ?? (await scanOutput(blob.content));
    const info: BlobInfo = {
      id: newId('r'),
      sessionId,
      toolName: blob.toolName,
      toolCallId: blob.toolCallId,
      byteSize: blob.content.length,
      lineCount: measured.lineCount,
      sha256: measured.sha256,
      createdAt: this.now(),
    };
    // The content is written once, now, to files of its own; the session segment only indexes it.
    // A large result goes to part files first and its main file last, so the main file's presence
    // means the result is complete.
    const parts = blob.content.length > BLOB_PART_BYTES ? Math.ceil(blob.content.length / BLOB_PART_BYTES) : 0;
    const written: string[] = [];
    try {
      await fsp.mkdir(join(this.root, 'blobs'), { recursive: true });
      for (let part = 0; part < parts; part++) {
        const path = this.blobPartPath(info.id, part);
        const slice = blob.content.subarray(part * BLOB_PART_BYTES, (part + 1) * BLOB_PART_BYTES);
        await this.writeOnce(path, (db) => db.run('INSERT INTO tool_result_blob_parts (blob_id, part, content) VALUES (?, ?, ?)', [info.id, part, slice]));
        written.push(path);
        await nextTurn();
      }
      await this.writeOnce(this.blobPath(info.id), (db) =>
        db.run('INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at, part_count, part_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          info.id, sessionId, info.toolName, info.toolCallId ?? null, parts ? null : blob.content, info.byteSize, info.lineCount, info.sha256, info.createdAt, parts, parts ? BLOB_PART_BYTES : 0,
        ]),
      );
    } catch (error) {
      await Promise.all(written.map((path) => fsp.rm(path, { force: true }).catch(() => undefined)));
      this.reportWriteFailure(this.blobPath(info.id), error);
      throw error;
    }
    const file = this.ownFile(this.segmentPath(sessionId));
    file.db.run('INSERT OR REPLACE INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)', [
      info.id, sessionId, info.toolName, info.toolCallId ?? null, info.byteSize, info.lineCount, info.sha256, info.createdAt,
    ]);
    this.touch(file);
    this.blobIndex.set(info.id, info);
    return info;
  }

  private blobInfoOf(r: Record<string, SqlValue>): BlobInfo {
    return {
      id: String(r.id),
      sessionId: String(r.session_id),
      toolName: String(r.tool_name),
      toolCallId: r.tool_call_id === null ? undefined : String(r.tool_call_id),
      byteSize: Number(r.byte_size),
      lineCount: Number(r.line_count),
      sha256: String(r.sha256),
      createdAt: Number(r.created_at),
    };
  }

  async getBlobInfo(refId: string): Promise<BlobInfo | undefined> {
    if (!REF_PATTERN.test(refId)) return undefined;
    const known = this.blobIndex.get(refId);
    if (known) return known;
    const path = this.blobPath(refId);
    const db = await this.readFile(path);
    if (!db) {
      const unreadable = await this.unreadableBlob(refId, path);
      if (unreadable) throw unreadable;
      return undefined;
    }
    const [r] = rows(db, 'SELECT id, session_id, tool_name, tool_call_id, byte_size, line_count, sha256, created_at FROM tool_result_blobs WHERE id = ?', [refId]);
    if (!r) return undefined;
    const info = this.blobInfoOf(r);
    this.blobIndex.set(refId, info);
    return info;
  }

  /** Reads one file's rows and lets its database go: blob files are not kept in memory. */
  private async readOnce<T>(path: string, read: (db: Database) => T): Promise<T | undefined> {
    const db = await this.readFile(path);
    if (!db) return undefined;
    try {
      return read(db);
    } finally {
      this.readCache.get(path)?.db.close();
      this.readCache.delete(path);
    }
  }

  async readBlob(refId: string, offset: number, limit: number): Promise<BlobSlice> {
    const info = await this.getBlobInfo(refId);
    if (!info) throw new Error(`no stored result has ref_id "${refId}"`);
    const start = Math.max(0, Math.min(Math.floor(offset), info.byteSize));
    const length = Math.max(0, Math.min(Math.floor(limit), info.byteSize - start));
    const unreadable = async (path: string) => (await this.unreadableBlob(refId, path)) ?? new Error(`the stored result "${refId}" could not be read: ${basename(path)} is missing`);
    const layout = await this.readOnce(this.blobPath(refId), (db) => {
      const [r] = rows(db, 'SELECT part_count, part_bytes, CASE WHEN part_count = 0 THEN substr(content, ?, ?) END AS part FROM tool_result_blobs WHERE id = ?', [start + 1, length, refId]);
      return r && { parts: Number(r.part_count), partBytes: Number(r.part_bytes), inline: r.part instanceof Uint8Array ? r.part : new Uint8Array(0) };
    });
    if (!layout) throw await unreadable(this.blobPath(refId));
    if (layout.parts === 0 || length === 0) return { bytes: layout.inline, offset: start, totalBytes: info.byteSize };
    const bytes = new Uint8Array(length);
    for (let part = Math.floor(start / layout.partBytes); part * layout.partBytes < start + length; part++) {
      const partStart = part * layout.partBytes;
      const from = Math.max(start, partStart);
      const to = Math.min(start + length, partStart + layout.partBytes);
      const partPath = this.blobPartPath(refId, part);
      const chunk = await this.readOnce(partPath, (db) => {
        const [r] = rows(db, 'SELECT substr(content, ?, ?) AS part FROM tool_result_blob_parts WHERE blob_id = ? AND part = ?', [from - partStart + 1, to - from, refId, part]);
        return r?.part instanceof Uint8Array ? r.part : undefined;
      });
      if (!chunk) throw await unreadable(partPath);
      if (chunk.length !== to - from) throw new Error(`the stored result "${refId}" could not be read: part ${part} is shorter than recorded`);
      bytes.set(chunk, from - start);
    }
    return { bytes, offset: start, totalBytes: info.byteSize };
  }

  async listBlobs(sessionId: string): Promise<BlobInfo[]> {
    const byId = new Map<string, BlobInfo>();
    for (const db of await this.sessionDbs(sessionId, /\.seg\d+\.sqlite$/)) {
      for (const r of rows(db, 'SELECT id, session_id, tool_name, tool_call_id, byte_size, line_count, sha256, created_at FROM tool_result_blobs WHERE session_id = ?', [sessionId])) {
        byId.set(String(r.id), this.blobInfoOf(r));
      }
    }
    return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  // ---- snapshots, events, usage ------------------------------------------------------------

  async saveSnapshot(snapshot: SessionSnapshot): Promise<void> {
    const file = this.ownFile(this.snapshotPath(snapshot.sessionId));
    file.db.run('INSERT OR REPLACE INTO session_snapshots (session_id, compaction_id, token_count, created_at, written_at, messages) VALUES (?, ?, ?, ?, ?, ?)', [
      snapshot.sessionId, snapshot.compactionId, snapshot.tokenCount, snapshot.createdAt, this.stamp(), JSON.stringify(snapshot.messages),
    ]);
    this.touch(file);
  }

  async loadSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    let best: { written: number; snapshot: SessionSnapshot } | undefined;
    for (const db of await this.sessionDbs(sessionId, /\.snap\.sqlite$/)) {
      for (const r of rows(db, 'SELECT * FROM session_snapshots WHERE session_id = ?', [sessionId])) {
        const written = Number(r.written_at);
        if (best && best.written >= written) continue;
        try {
          best = { written, snapshot: { sessionId, compactionId: String(r.compaction_id), tokenCount: Number(r.token_count), createdAt: Number(r.created_at), messages: JSON.parse(String(r.messages)) } };
        } catch {
          // An unreadable snapshot is ignored: resume falls back to the transcript.
        }
      }
    }
    return best?.snapshot;
  }

  async addCompactionEvent(event: CompactionEventRecord): Promise<void> {
    const file = this.ownFile(this.segmentPath(event.sessionId));
    file.db.run('INSERT OR REPLACE INTO compaction_events (id, session_id, started_at, body) VALUES (?, ?, ?, ?)', [event.id, event.sessionId, event.startedAt, JSON.stringify(event)]);
    this.touch(file);
  }

  async listCompactionEvents(sessionId: string): Promise<CompactionEventRecord[]> {
    return this.collect<CompactionEventRecord>(sessionId, 'SELECT id, body FROM compaction_events WHERE session_id = ?', (a, b) => a.startedAt - b.startedAt);
  }

  async addTurnUsage(record: TurnUsageRecord): Promise<void> {
    const file = this.ownFile(this.segmentPath(record.sessionId));
    file.db.run('INSERT OR REPLACE INTO turn_usage (id, session_id, request_index, created_at, body) VALUES (?, ?, ?, ?, ?)', [record.id, record.sessionId, record.requestIndex, record.createdAt, JSON.stringify(record)]);
    this.touch(file);
  }

  async listTurnUsage(sessionId: string): Promise<TurnUsageRecord[]> {
    return this.collect<TurnUsageRecord>(sessionId, 'SELECT id, body FROM turn_usage WHERE session_id = ?', (a, b) => a.requestIndex - b.requestIndex || a.createdAt - b.createdAt);
  }

  private async collect<T>(sessionId: string, sql: string, order: (a: T, b: T) => number): Promise<T[]> {
    const byId = new Map<string, T>();
    for (const db of await this.sessionDbs(sessionId, /\.seg\d+\.sqlite$/)) {
      for (const r of rows(db, sql, [sessionId])) {
        try {
          byId.set(String(r.id), JSON.parse(String(r.body)) as T);
        } catch {
          // skip an unreadable row
        }
      }
    }
    return [...byId.values()].sort(order);
  }
}

/** Opens (creating if needed) the store in `folder`. */
export async function openStore(folder: string, options: StoreOptions = {}): Promise<SqlJsStore> {
  const SQL = await sqlRuntime(options.wasmPath);
  await fsp.mkdir(join(folder, 'sessions'), { recursive: true });
  await fsp.mkdir(join(folder, 'blobs'), { recursive: true });
  const store = new SqlJsStore(folder, SQL, options);
  await store.cleanTempFiles();
  await store.startHeartbeat();
  return store;
}
