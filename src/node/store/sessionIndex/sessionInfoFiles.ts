import { newId } from '../../../core/model/ids';
import type { Message } from '../../../core/model/message';
import { INFO_FILE, SESSION_PATTERN } from '../files/storeLayout';
import { laterRow, putSessionRow, SESSION_COLUMNS, sessionRowOf, type SessionRow } from './sessionRowSql';
import type { SessionIndex } from './sessionIndex';
import { rows } from '../sql/connection';
import { eachSessionDb, ownDb, type StoreParts } from '../storeParts';
import type { SessionInfo } from '../../../core/ports/sessionStore';

const RECOVERED_TITLE_CHARS = 60;

/** Session rows: each writer's `<writer>.info.sqlite` in the session's folder, merged on read. */
export class SessionInfoFiles {
  private readonly recovering = new Map<string, Promise<SessionRow | undefined>>();

  constructor(
    private readonly parts: StoreParts,
    private readonly index: SessionIndex,
    private readonly loadTranscript: (sessionId: string) => Promise<Message[]>,
  ) {}

  private async write(info: SessionInfo, deleted = false, written = this.parts.stamp()): Promise<void> {
    const row = { info, deleted, written };
    putSessionRow(await ownDb(this.parts, this.parts.layout.infoPath(info.id)), row);
    await this.index.note(row);
  }

  async create(init: Partial<SessionInfo> & { title: string }): Promise<SessionInfo> {
    const now = this.parts.now();
    const info: SessionInfo = { id: init.id ?? newId('s'), title: init.title, createdAt: init.createdAt ?? now, updatedAt: init.updatedAt ?? now, model: init.model, origin: init.origin };
    await this.write(info);
    return info;
  }

  /** The session's row merged from every writer's info file, or rebuilt from its messages. */
  async row(sessionId: string): Promise<SessionRow | undefined> {
    let best: SessionRow | undefined;
    await eachSessionDb(this.parts, sessionId, INFO_FILE, (db) => {
      for (const r of rows(db, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`, [sessionId])) best = laterRow(best, sessionRowOf(r));
    });
    if (best) {
      const indexed = this.index.known(sessionId);
      // A row saved while its index write was lost (a crash in between) mends the index.
      if (indexed && indexed.written < best.written && !this.parts.flusher.isClosed) await this.index.note(best);
      return best;
    }
    return this.recover(sessionId);
  }

  /**
   * A session whose rows are all unreadable (its info file was damaged and set aside) would vanish
   * from the list although its messages are intact in the segment files. Its row is rebuilt from
   * those messages and saved as this writer's info file; any row written by the session's own
   * writers still wins (the rebuilt row is stamped 0).
   */
  private recover(sessionId: string): Promise<SessionRow | undefined> {
    let pending = this.recovering.get(sessionId);
    if (!pending) {
      pending = this.rebuild(sessionId).finally(() => this.recovering.delete(sessionId));
      this.recovering.set(sessionId, pending);
    }
    return pending;
  }

  private async rebuild(sessionId: string): Promise<SessionRow | undefined> {
    if (this.parts.flusher.isClosed) return undefined;
    const transcript = await this.loadTranscript(sessionId);
    if (transcript.length === 0 || this.parts.flusher.isClosed) return undefined;
    const first = transcript.find((m) => m.role === 'user' && m.kind === 'user' && m.content.trim() !== '');
    const line = first?.content.trim().split(/\r?\n/)[0].trim() ?? '';
    const title = line === '' ? 'Recovered session' : line.length > RECOVERED_TITLE_CHARS ? `${line.slice(0, RECOVERED_TITLE_CHARS - 1).trimEnd()}…` : line;
    const times = transcript.map((m) => m.createdAt).filter((t) => Number.isFinite(t));
    const now = this.parts.now();
    const info: SessionInfo = { id: sessionId, title, createdAt: times.length ? Math.min(...times) : now, updatedAt: times.length ? Math.max(...times) : now, model: undefined, origin: undefined };
    await this.write(info, false, 0);
    this.parts.problems.report({
      file: this.parts.layout.infoPath(sessionId),
      kind: 'recovered',
      message: `session ${sessionId} had no readable session row; rebuilt it from its ${transcript.length} messages as "${title}"`,
    });
    return { info, deleted: false, written: 0 };
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    if (!SESSION_PATTERN.test(id)) return undefined;
    const row = await this.row(id);
    return row && !row.deleted ? row.info : undefined;
  }

  async update(id: string, patch: Partial<Omit<SessionInfo, 'id'>>): Promise<void> {
    const current = await this.get(id);
    if (!current) throw new Error(`unknown session "${id}"`);
    await this.write({ ...current, ...patch, id, updatedAt: patch.updatedAt ?? this.parts.now() });
  }

  async delete(id: string): Promise<void> {
    const current = await this.row(id);
    if (current) await this.write({ ...current.info, updatedAt: this.parts.now() }, true);
  }

  list(): Promise<SessionInfo[]> {
    return this.index.list((id) => this.row(id));
  }
}
