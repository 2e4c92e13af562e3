/**
 * A compaction's removed items as they travel to the inspector: a large compaction removes
 * thousands of items, so the history and the preview carry the first few with the count and
 * tokens of all of them, and the rest come a page at a time when the user asks.
 */
import { compactionHead, REMOVED_FIRST, removedPage, type CompactionHead, type RemovedPage } from '../core/model/compactionHead';
import type { CompactionEventRecord, RemovedItem } from '../core/model/records';

/** At most this many removed items answer one ask for more. */
export const REMOVED_MORE = 5_000;

export { REMOVED_FIRST, removedPage, type RemovedPage };

/** A compaction as the inspector's history gets it: its head (the items it added stay on the host, for rewinds and forks). */
export type CompactionView = CompactionHead;

export function compactionView(record: CompactionEventRecord | CompactionHead): CompactionView {
  return compactionHead(record);
}

/** The removed items a "show more" asks for: a page from `offset`, with how many there are in all. */
export function removedAfter(removed: readonly RemovedItem[], offset: number): { items: RemovedItem[]; total: number } {
  return { items: removed.slice(offset, offset + REMOVED_MORE), total: removed.length };
}
