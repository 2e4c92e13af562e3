import type { CompactionEventRecord, RemovedItem } from './records';

/** How many of a compaction's removed items its head carries (the inspector's history shows them first). */
export const REMOVED_FIRST = 100;

/** A compaction's removed items as its head carries them: the first few, with the count and tokens of all of them. */
export interface RemovedPage {
  /** The first removed items, in the record's order (at most REMOVED_FIRST). */
  removedFirst: RemovedItem[];
  /** How many items the compaction removed, and their tokens: all of them, not only those carried. */
  removedCount: number;
  removedTokens: number;
}

/**
 * A compaction without its lists: its figures, its summary and the first of its removed items.
 * A compaction of 50,000 messages removes tens of thousands of items; opening a session lists
 * every compaction's head, and the whole lists are read only when asked for (a page of removed
 * items, a rewind, an export).
 */
export type CompactionHead = Omit<CompactionEventRecord, 'removed' | 'added'> & RemovedPage;

export function removedPage(removed: readonly RemovedItem[]): RemovedPage {
  let tokens = 0;
  for (const item of removed) tokens += item.tokens;
  return { removedFirst: removed.slice(0, REMOVED_FIRST), removedCount: removed.length, removedTokens: tokens };
}

function isHead(entry: CompactionEventRecord | CompactionHead): entry is CompactionHead {
  return typeof (entry as Partial<CompactionHead>).removedCount === 'number';
}

/** The head of a whole record (a head is its own head); the items a compaction added stay out. */
export function compactionHead(entry: CompactionEventRecord | CompactionHead): CompactionHead {
  if (isHead(entry)) return entry;
  const { removed, added: _added, ...rest } = entry;
  return { ...rest, ...removedPage(removed ?? []) };
}

/** A compaction as a view gets it: the whole record (a live one) or its head (one read from the store). */
export type ShownCompaction = CompactionEventRecord | CompactionHead;
