import type { Database, SqlValue } from 'sql.js';
import { nextTurn } from '../../../core/nextTurn';
import { runPrepared } from '../sql/preparedStatements';

/** The databases of this writer that rows of a closed window's files move into. */
export interface AbsorbTargets {
  info(): Database;
  segment(): Database;
  snapshot(): Database;
}

/** Rows copied between checks of the clock. */
const ROWS_PER_CHECK = 32;

/**
 * Visits every row, yielding to the event loop whenever a slice has run `sliceMs`: a large file is
 * copied in many short slices, never one long block. `from` must be owned by the caller (not a
 * cached database another read could close meanwhile).
 */
async function each(db: Database, sql: string, visit: (row: SqlValue[]) => void, slice: Slicer): Promise<number> {
  const statement = db.prepare(sql);
  let count = 0;
  try {
    while (statement.step()) {
      visit(statement.get());
      if (++count % ROWS_PER_CHECK === 0) await slice.maybeYield();
    }
  } finally {
    statement.free();
  }
  return count;
}

/** Yields to the event loop once the current slice has run its time; counts the yields. */
export class Slicer {
  private started = performance.now();
  yields = 0;

  constructor(private readonly sliceMs: number) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return;
    this.yields++;
    await nextTurn();
    this.started = performance.now();
  }
}

/**
 * Copies every row of a closed writer's file into this writer's files. Rows keep their
 * `written_at`, and a copy never replaces a newer row, so reads (latest write wins) give the same
 * answer before and after; records that never change are copied once. Returns the rows copied.
 */
export async function absorbRows(from: Database, into: AbsorbTargets, slice: Slicer): Promise<number> {
  let copied = 0;
  copied += await each(from, 'SELECT id, title, created_at, updated_at, model, origin, deleted, written_at FROM sessions', (r) =>
    runPrepared(into.info(), 
      `INSERT INTO sessions (id, title, created_at, updated_at, model, origin, deleted, written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET title = excluded.title, created_at = excluded.created_at, updated_at = excluded.updated_at, model = excluded.model,
         origin = excluded.origin, deleted = excluded.deleted, written_at = excluded.written_at WHERE excluded.written_at > sessions.written_at`,
      r,
    ),
    slice,
  );
  copied += await each(from, 'SELECT id, session_id, created_at, written_at, body FROM messages', (r) =>
    runPrepared(into.segment(), 
      `INSERT INTO messages (id, session_id, created_at, written_at, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at, written_at = excluded.written_at, body = excluded.body
       WHERE excluded.written_at > messages.written_at`,
      r,
    ),
    slice,
  );
  copied += await each(from, 'SELECT id, session_id, tool_name, tool_call_id, byte_size, line_count, sha256, created_at FROM tool_result_blobs', (r) =>
    runPrepared(into.segment(), 'INSERT OR IGNORE INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)', r),
    slice,
  );
  copied += await each(from, 'SELECT id, session_id, started_at, body FROM compaction_events', (r) =>
    runPrepared(into.segment(), 'INSERT OR IGNORE INTO compaction_events (id, session_id, started_at, body) VALUES (?, ?, ?, ?)', r),
    slice,
  );
  copied += await each(from, 'SELECT id, session_id, request_index, created_at, body FROM turn_usage', (r) =>
    runPrepared(into.segment(), 'INSERT OR IGNORE INTO turn_usage (id, session_id, request_index, created_at, body) VALUES (?, ?, ?, ?, ?)', r),
    slice,
  );
  copied += await each(from, 'SELECT session_id, compaction_id, token_count, created_at, written_at, messages FROM session_snapshots', (r) =>
    runPrepared(into.snapshot(), 
      `INSERT INTO session_snapshots (session_id, compaction_id, token_count, created_at, written_at, messages) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET compaction_id = excluded.compaction_id, token_count = excluded.token_count, created_at = excluded.created_at,
         written_at = excluded.written_at, messages = excluded.messages WHERE excluded.written_at > session_snapshots.written_at`,
      r,
    ),
    slice,
  );
  return copied;
}
