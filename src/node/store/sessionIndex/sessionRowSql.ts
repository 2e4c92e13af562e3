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
  return sessionRowOfValues([r.id, r.title, r.created_at, r.updated_at, r.model, r.origin, r.deleted, r.written_at]);
}

/** The same from a statement's values in SESSION_COLUMNS order (no object per row to build first). */
export function sessionRowOfValues(v: SqlValue[]): SessionRow {
  return {
    written: Number(v[7]),
    deleted: Boolean(v[6]),
    info: { id: String(v[0]), title: String(v[1]), createdAt: Number(v[2]), updatedAt: Number(v[3]), model: v[4] === null ? undefined : String(v[4]), origin: v[5] === null ? undefined : String(v[5]) },
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
