import { compactionHead, removedPage, type CompactionHead, type RemovedPage } from '../../../core/model/compactionHead';
import type { AddedItem, CompactionEventRecord, RemovedItem } from '../../../core/model/records';
import { nextTurn } from '../../../core/nextTurn';
import { runPrepared, textBytes } from '../sql/preparedStatements';
import type { StoreParts } from '../storeParts';

/**
 * About this many characters of a compaction record's lists are stored per row. A compaction of
 * 50,000 messages removes tens of thousands of items: written as one row, its record held the
 * extension host for seconds in sql.js (its file grown and copied as the row's pages went in).
 */
export const PIECE_CHARS = 128 * 1024;

/**
 * A record whose lists were stored in pieces: the row with its figures, written after them, with
 * the first of its removed items and their count and tokens (builds before those were kept wrote
 * none: such a head is put together with its pieces to be listed).
 */
interface StoredHead extends CompactionEventRecord, Partial<RemovedPage> {
  pieces: number;
}

/** The rows of a session's record pieces (the lists every open reads hold only the heads). */
export const PIECES_SQL = "SELECT id, body FROM compaction_events WHERE session_id = ? AND instr(id, '#') > 0";
/** The pieces and the head of one record. */
export const ONE_RECORD_SQL = 'SELECT id, body FROM compaction_events WHERE session_id = ? AND (id = ? OR id LIKE ?)';

/** One piece of a record's list, in its own row (id `<record id>#<n>`). */
export interface StoredPiece {
  pieceOf: string;
  piece: number;
  list: 'removed' | 'added';
  items: RemovedItem[] | AddedItem[];
}

const INSERT = 'INSERT OR REPLACE INTO compaction_events (id, session_id, started_at, body) VALUES (?, ?, ?, CAST(? AS TEXT))';

/** Each list's items as JSON, cut in runs of about PIECE_CHARS characters (at least one item each). */
function* pieceBodies(event: CompactionEventRecord): Generator<{ list: StoredPiece['list']; json: string }> {
  for (const list of ['removed', 'added'] as const) {
    let run: string[] = [];
    let chars = 0;
    for (const item of event[list] ?? []) {
      const json = JSON.stringify(item);
      if (run.length > 0 && chars + json.length > PIECE_CHARS) {
        yield { list, json: run.join(',') };
        run = [];
        chars = 0;
      }
      run.push(json);
      chars += json.length + 1;
    }
    if (run.length > 0) yield { list, json: run.join(',') };
  }
}

/** Records with more items than this are stored in pieces (a few hundred items are about PIECE_CHARS). */
const PIECES_FROM_ITEMS = 200;

/**
 * Writes a compaction record to the session's current segment. A long one goes in pieces, one row
 * each with a turn of the event loop between them, then its head (the figures and the number of
 * pieces) last. The segment is not saved while the pieces go in, so a file on disk holds the whole
 * record or none of it, and they all go to the same file.
 */
export async function writeCompactionRecord(parts: StoreParts, event: CompactionEventRecord): Promise<void> {
  const path = parts.own.segmentPath(event.sessionId);
  // Records written by older builds, or by hand, may carry no removed list.
  if ((event.removed?.length ?? 0) + (event.added?.length ?? 0) <= PIECES_FROM_ITEMS) {
    const file = await parts.own.get(path);
    parts.flusher.touch(file);
    runPrepared(file.db, INSERT, [event.id, event.sessionId, event.startedAt, textBytes(JSON.stringify(event))]);
    return;
  }
  const file = await parts.own.get(path);
  const release = parts.own.holdSaves(file);
  try {
    let piece = 0;
    for (const { list, json } of pieceBodies(event)) {
      const body = `{"pieceOf":${JSON.stringify(event.id)},"piece":${piece},"list":"${list}","items":[${json}]}`;
      parts.flusher.touch(file);
      runPrepared(file.db, INSERT, [`${event.id}#${piece}`, event.sessionId, event.startedAt, textBytes(body)]);
      piece++;
      await nextTurn();
    }
    const { removed, added: _added, ...figures } = event;
    const head: StoredHead = { ...figures, removed: [], pieces: piece, ...removedPage(removed) };
    parts.flusher.touch(file);
    runPrepared(file.db, INSERT, [event.id, event.sessionId, event.startedAt, textBytes(JSON.stringify(head))]);
  } finally {
    release();
  }
}

/**
 * The records as written: each record stored in pieces gets its lists back, in order; a record
 * some piece of which is missing or unreadable is left out (never shown half), and so are pieces
 * whose record is not there (a window closed while writing them).
 */
export function assembleCompactionRecords(stored: ReadonlyArray<CompactionEventRecord | StoredPiece>): CompactionEventRecord[] {
  const pieces = new Map<string, StoredPiece[]>();
  for (const row of stored) {
    if (!('pieceOf' in row)) continue;
    const found = pieces.get(row.pieceOf);
    if (found) found.push(row);
    else pieces.set(row.pieceOf, [row]);
  }
  const out: CompactionEventRecord[] = [];
  for (const row of stored) {
    if ('pieceOf' in row) continue;
    const count = (row as Partial<StoredHead>).pieces;
    if (count === undefined) {
      out.push(row);
      continue;
    }
    const own = (pieces.get(row.id) ?? []).sort((a, b) => a.piece - b.piece);
    if (own.length !== count || own.some((p, at) => p.piece !== at)) continue;
    const { pieces: _count, removedFirst: _first, removedCount: _removedCount, removedTokens: _tokens, ...record } = row as StoredHead;
    const removed: RemovedItem[] = [];
    const added: AddedItem[] = [];
    for (const p of own) {
      if (p.list === 'removed') for (const item of p.items as RemovedItem[]) removed.push(item);
      else for (const item of p.items as AddedItem[]) added.push(item);
    }
    out.push({ ...record, removed, ...(added.length ? { added } : {}) });
  }
  return out;
}

/** A stored row of the compaction list that is a piece of a record, not a record or its head. */
export function isPiece(row: CompactionEventRecord | StoredPiece): row is StoredPiece {
  return 'pieceOf' in row;
}

/**
 * The head of a stored record as the list of heads gives it: a record in one row is cut to its
 * head; a head written in pieces carries its own. Undefined for a head written by a build that
 * kept no removed items on it (the caller puts that record together from its pieces).
 */
export function storedHead(row: CompactionEventRecord): CompactionHead | undefined {
  const stored = row as Partial<StoredHead>;
  if (stored.pieces === undefined) return compactionHead(row);
  if (stored.removedCount === undefined) return undefined;
  const { pieces: _count, removed: _removed, added: _added, ...head } = row as StoredHead;
  return head as CompactionHead;
}
