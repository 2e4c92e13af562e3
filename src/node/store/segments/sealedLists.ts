import type { Database } from 'sql.js';
import { StoreLayout } from '../files/storeLayout';
import { INFO_COLUMNS } from '../blobs/blobInfoRows';
import { rows, type Row } from '../sql/connection';

/** Where a usage body's item list begins: its last key (an unescaped quote occurs only around keys and string values). */
export const ITEMS_KEY = ',"storedItems":';
/** A usage body cut before its item list: the figures alone, parsed without the list. */
export const FIGURES_BODY = `CASE WHEN instr(body, '${ITEMS_KEY}') > 0 THEN substr(body, 1, instr(body, '${ITEMS_KEY}') - 1) || '}' ELSE body END`;

/** The lists read from every segment of a session each time a window opens it (the chat and the inspector list them). */
export const SEGMENT_LISTS = {
  usageFigures: `SELECT id, ${FIGURES_BODY} AS body FROM turn_usage WHERE session_id = ?`,
  // The records' heads: the pieces of a long record's lists are read when the whole record is asked for.
  compactions: "SELECT id, body FROM compaction_events WHERE session_id = ? AND instr(id, '#') = 0",
  blobs: `SELECT ${INFO_COLUMNS} FROM tool_result_blobs WHERE session_id = ?`,
} as const;
export type SegmentList = keyof typeof SEGMENT_LISTS;
export type ListRows = readonly Row[];
export type SegmentListRows = Record<SegmentList, ListRows>;

/** Every list of one segment's rows of `sessionId`. */
export function segmentLists(db: Database, sessionId: string): SegmentListRows {
  return { usageFigures: rows(db, SEGMENT_LISTS.usageFigures, [sessionId]), compactions: rows(db, SEGMENT_LISTS.compactions, [sessionId]), blobs: rows(db, SEGMENT_LISTS.blobs, [sessionId]) };
}

/** About how much text of sealed segments' lists is kept (their usage figures are a few hundred bytes a request). */
const KEPT_CHARS = 16 * 2 ** 20;

/**
 * The lists of sealed segments (never written again), taken the first time such a segment is
 * opened for any read: opening a session lists usage figures and compaction records over every
 * segment, and the chat, the inspector and the session itself each ask, so without this each
 * sealed file was loaded into sql.js again for each list. The least recently used go first.
 */
export class SealedLists {
  private readonly kept = new Map<string, { lists: SegmentListRows; chars: number }>();
  private chars = 0;
  /** Sealed segments being opened for their lists now: a second list read waits for that opening. */
  private readonly opening = new Map<string, Promise<void>>();

  /** Takes every list of the sealed segment at `path` from its open database, unless already kept. */
  take(path: string, db: Database): void {
    if (this.kept.has(path)) return;
    const segment = StoreLayout.segmentOf(path);
    if (segment) this.keep(path, segmentLists(db, segment.sessionId));
  }

  /** Keeps the lists of the sealed segment at `path` (read from it, or from its recorded facts). */
  keep(path: string, lists: SegmentListRows): void {
    if (this.kept.has(path)) return;
    let chars = 0;
    for (const found of Object.values(lists)) for (const r of found) chars += typeof r.body === 'string' ? r.body.length : 200;
    this.kept.set(path, { lists, chars });
    this.chars += chars;
    while (this.chars > KEPT_CHARS && this.kept.size > 1) this.forget(this.kept.keys().next().value!);
  }

  /** Every list kept for `path`, if they are. */
  listsOf(path: string): SegmentListRows | undefined {
    return this.kept.get(path)?.lists;
  }

  /**
   * The rows of `list` for the sealed segment at `path`: kept ones, or `open` run to take them
   * (once for reads of both lists at the same time). Undefined when the file could not be read.
   */
  async rowsFor(path: string, list: SegmentList, open: () => Promise<void>): Promise<ListRows | undefined> {
    const kept = this.rowsOf(path, list);
    if (kept) return kept;
    let opening = this.opening.get(path);
    if (!opening) {
      opening = open().finally(() => this.opening.delete(path));
      this.opening.set(path, opening);
    }
    await opening;
    return this.rowsOf(path, list);
  }

  /** The rows of `list` kept for `path`, if they are. */
  rowsOf(path: string, list: SegmentList): ListRows | undefined {
    const entry = this.kept.get(path);
    if (!entry) return undefined;
    this.kept.delete(path); // most recently used goes last
    this.kept.set(path, entry);
    return entry.lists[list];
  }

  forget(path: string): void {
    const entry = this.kept.get(path);
    if (!entry) return;
    this.kept.delete(path);
    this.chars -= entry.chars;
  }
}
