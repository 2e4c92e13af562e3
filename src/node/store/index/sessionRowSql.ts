import type { Database, SqlValue } from 'sql.js';
import { runPrepared } from '../sql/preparedStatements';
import type { Row } from '../sql/connection';
import type { SessionInfo } from '../../../core/ports/sessionStore';

/** A session's row as stored: its latest write wins, and a deletion by any writer sticks. */
export interface SessionRow {
  info: SessionInfo;
  deleted: boolean;
  written: number;
}

export const SESSION_COLUMNS = 'id, title, created_at, updated_at, model, origin, deleted, written_at';

export function sessionRowOf(r: Row): SessionRow {
  return {
    written: Number(r.written_at),
    deleted: Boolean(r.deleted),
    info: {
      id: String(r.id),
      title: String(r.title),
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
      model: r.model === null ? undefined : String(r.model),
      origin: r.origin === null ? undefined : String(r.origin),
    },
  };
}

/** The row to keep when two writers wrote the same session. */
export function laterRow(a: SessionRow | undefined, b: SessionRow): SessionRow {
  if (!a) return b;
  const latest = b.written > a.written ? b : a;
  return a.deleted || b.deleted ? { ...latest, deleted: true } : latest;
}

const INSERT = `INSERT OR REPLACE INTO sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

function values(row: SessionRow): SqlValue[] {
  const { info } = row;
  return [info.id, info.title, info.createdAt, info.updatedAt, info.model ?? null, info.origin ?? null, row.deleted ? 1 : 0, row.written];
}

export function putSessionRow(db: Database, row: SessionRow): void {
  runPrepared(db, INSERT, values(row));
}

/** Writes many rows through the database's prepared insert. */
export function putSessionRows(db: Database, list: Iterable<SessionRow>): void {
  for (const row of list) runPrepared(db, INSERT, values(row));
}
