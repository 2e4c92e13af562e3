/**
 * A compaction's removed items as they travel to the inspector: a large compaction removes
 * thousands of items, so the history and the preview carry the first few with the count and
 * tokens of all of them, and the rest come a page at a time when the user asks.
 */
import type { CompactionEventRecord, RemovedItem } from '../core/model/records';

/** How many of a compaction's removed items the inspector's history and preview carry. */
export const REMOVED_FIRST = 100;
/** At most this many removed items answer one ask for more. */
export const REMOVED_MORE = 5_000;

export interface RemovedPage {
  /** The first removed items, in the record's order (at most REMOVED_FIRST). */
  removedFirst: RemovedItem[];
  /** How many items the compaction removed, and their tokens: all of them, not only those carried. */
  removedCount: number;
  removedTokens: number;
}

/** A compaction as the inspector's history gets it. */
export type CompactionView = Omit<CompactionEventRecord, 'removed' | 'added'> & RemovedPage;

export function removedPage(removed: readonly RemovedItem[]): RemovedPage {
  let tokens = 0;
  for (const item of removed) tokens += item.tokens;
  return { removedFirst: removed.slice(0, REMOVED_FIRST), removedCount: removed.length, removedTokens: tokens };
}

/** The items a compaction added stay on the host (they are for rewinds and forks). */
export function compactionView(record: CompactionEventRecord): CompactionView {
  const { removed, added: _added, ...rest } = record;
  return { ...rest, ...removedPage(removed) };
}

/** The removed items a "show more" asks for: a page from `offset`, with how many there are in all. */
export function removedAfter(removed: readonly RemovedItem[], offset: number): { items: RemovedItem[]; total: number } {
  return { items: removed.slice(offset, offset + REMOVED_MORE), total: removed.length };
}
