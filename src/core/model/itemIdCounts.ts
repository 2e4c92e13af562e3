import type { RequestItem } from './records';

/**
 * How many items of an item list carry each message id, kept per list object (lists are never
 * changed once made). Finding them reads every item of a list, which at 50,000 items was most of
 * storing a usage record; so a list stored as a change of another takes over that list's counts,
 * adjusted for what changed.
 */
const countsByList = new WeakMap<readonly RequestItem[], Map<string, number>>();

export function itemIdCounts(items: readonly RequestItem[]): ReadonlyMap<string, number> {
  let counts = countsByList.get(items);
  if (!counts) {
    counts = new Map();
    for (const item of items) counts.set(item.messageId, (counts.get(item.messageId) ?? 0) + 1);
    countsByList.set(items, counts);
  }
  return counts;
}

/** `to` is `from` without the items `gone` and with the items `added`: it takes over `from`'s counts, when known. */
export function carryItemIdCounts(from: readonly RequestItem[], to: readonly RequestItem[], gone: readonly RequestItem[], added: readonly RequestItem[]): void {
  const counts = countsByList.get(from);
  if (!counts || from === to) return;
  countsByList.delete(from);
  for (const { messageId } of gone) {
    const n = (counts.get(messageId) ?? 0) - 1;
    if (n > 0) counts.set(messageId, n);
    else counts.delete(messageId);
  }
  for (const { messageId } of added) counts.set(messageId, (counts.get(messageId) ?? 0) + 1);
  countsByList.set(to, counts);
}

/** `counts` are `items`' (kept by whoever built the list): later questions about `items` take them instead of reading it. */
export function knownItemIdCounts(items: readonly RequestItem[], counts: Map<string, number>): void {
  countsByList.set(items, counts);
}
