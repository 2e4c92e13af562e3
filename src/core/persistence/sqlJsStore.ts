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
import { createHash, randomBytes } from 'crypto';
import { promises as fsp } from 'fs';
import { join } from 'path';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import { newId } from '../model/ids';
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

function lineCount(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let lines = 1;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) if (i < bytes.length - 1) lines++;
  return lines;
}

export class SqlJsStore implements SessionStore {
  readonly writer = `w${process.pid.toString(36)}${randomBytes(4).toString('hex')}`;
  private readonly own = new Map<string, OwnFile>();
  private readonly readCache = new Map<string, ReadFile>();
  private readonly segment = new Map<string, number>();
  private readonly blobIndex = new Map<string, BlobInfo>();
  private readonly reported = new Set<string>();
  private readonly problemList: StoreProblem[] = [];
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
    this.options.log?.(`store ${problem.kind}: ${problem.file}: ${problem.message}`);
    for (const listener of this.listeners) listener(full);
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
    let db: Database;
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
      for (const m of migrationsFrom(version)) db.run(m.sql);
      db.exec('SELECT count(*) FROM sqlite_master'); // forces a read of the header and schema
    } catch (error) {
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
      this.report({ file: path, kind: 'corrupt', message: error instanceof Error ? error.message : String(error), movedTo });
    } catch {
      this.report({ file: path, kind: 'read-failed', message: error instanceof Error ? error.message : String(error) });
    }
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
      this.flush().catch(() => this.scheduleFlush(Math.max(1000, this.debounceMs)));
    }, delay);
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.flushing) await this.flushing;
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
        failure = error;
        this.report({ file: path, kind: 'write-failed', message: error instanceof Error ? error.message : String(error) });
        continue;
      }
      if (sealing && !file.dirty) {
        this.own.delete(path);
        file.db.close();
      }
    }
    if (failure) throw failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      for (const file of this.own.values()) file.db.close();
      for (const file of this.readCache.values()) file.db.close();
      this.own.clear();
      this.readCache.clear();
    }
  }

  /** Removes temp files a crashed writer left behind (older than a minute). */
  async cleanTempFiles(): Promise<void> {
    const sessions = join(this.root, 'sessions');
    const dirs = await fsp.readdir(sessions).catch(() => [] as string[]);
    for (const dir of [...dirs.map((d) => join(sessions, d)), join(this.root, 'blobs')]) {
      for (const name of await fsp.readdir(dir).catch(() => [] as string[])) {
        if (!name.includes('.tmp-')) continue;
        const path = join(dir, name);
        const stat = await fsp.stat(path).catch(() => undefined);
        if (stat && this.now() - stat.mtimeMs > 60_000) await fsp.rm(path, { force: true });
      }
    }
  }

  // ---- sessions ----------------------------------------------------------------------------

  private writeSessionRow(info: SessionInfo, deleted = false): void {
    const file = this.ownFile(join(this.sessionDir(info.id), `${this.writer}.info.sqlite`));
    file.db.run('INSERT OR REPLACE INTO sessions (id, title, created_at, updated_at, model, origin, deleted, written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      info.id,
      info.title,
      info.createdAt,
      info.updatedAt,
      info.model ?? null,
      info.origin ?? null,
      deleted ? 1 : 0,
      this.stamp(),
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
    return best && { info: best.info, deleted };
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

  async loadTranscript(sessionId: string): Promise<Message[]> {
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

  async putBlob(sessionId: string, blob: { toolName: string; toolCallId?: string; content: Uint8Array }): Promise<BlobInfo> {
    const info: BlobInfo = {
      id: newId('r'),
      sessionId,
      toolName: blob.toolName,
      toolCallId: blob.toolCallId,
      byteSize: blob.content.length,
      lineCount: lineCount(blob.content),
      sha256: createHash('sha256').update(blob.content).digest('hex'),
      createdAt: this.now(),
    };
    // The content is written once, now, to its own file; the session segment only indexes it.
    const db = this.newDatabase();
    try {
      db.run('INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        info.id, sessionId, info.toolName, info.toolCallId ?? null, blob.content, info.byteSize, info.lineCount, info.sha256, info.createdAt,
      ]);
      const data = db.export();
      await fsp.mkdir(join(this.root, 'blobs'), { recursive: true });
      await writeAtomically(this.fs, this.blobPath(info.id), data, this.writer);
    } catch (error) {
      this.report({ file: this.blobPath(info.id), kind: 'write-failed', message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      db.close();
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
    const db = await this.readFile(this.blobPath(refId));
    if (!db) return undefined;
    const [r] = rows(db, 'SELECT id, session_id, tool_name, tool_call_id, byte_size, line_count, sha256, created_at FROM tool_result_blobs WHERE id = ?', [refId]);
    if (!r) return undefined;
    const info = this.blobInfoOf(r);
    this.blobIndex.set(refId, info);
    return info;
  }

  async readBlob(refId: string, offset: number, limit: number): Promise<BlobSlice> {
    const info = await this.getBlobInfo(refId);
    if (!info) throw new Error(`no stored result has ref_id "${refId}"`);
    const db = await this.readFile(this.blobPath(refId));
    if (!db) throw new Error(`the stored result "${refId}" could not be read`);
    const start = Math.max(0, Math.min(Math.floor(offset), info.byteSize));
    const length = Math.max(0, Math.min(Math.floor(limit), info.byteSize - start));
    const [r] = rows(db, 'SELECT substr(content, ?, ?) AS part FROM tool_result_blobs WHERE id = ?', [start + 1, length, refId]);
    const part = r?.part;
    const bytes = part instanceof Uint8Array ? part : new Uint8Array(0);
    // Keep memory flat: a blob file is read again when needed rather than cached whole.
    this.readCache.get(this.blobPath(refId))?.db.close();
    this.readCache.delete(this.blobPath(refId));
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
    const file = this.ownFile(join(this.sessionDir(snapshot.sessionId), `${this.writer}.snap.sqlite`));
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
  return store;
}
