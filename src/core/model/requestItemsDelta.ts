import { carryItemIdCounts, itemIdCounts, knownItemIdCounts } from './itemIdCounts';
import { listWork, markOf, unchangedBefore } from './listLineage';
import type { RequestItem } from './records';

/**
 * How a request's item list is stored: in full, or as what changed since an earlier request's
 * list (its record id), so a long session's usage records grow with what changed, not with the
 * size of the context.
 */
export type StoredRequestItems =
  | { full: RequestItem[] }
  | {
      /** The record whose item list this one is a change of. */
      base: string;
      /** Message ids of the base's items that are gone or changed. */
      removed: string[];
      /** New or changed items with their position in this request, in ascending order. */
      added: Array<[number, RequestItem]>;
    };

function sameItem(a: RequestItem, b: RequestItem): boolean {
  if (a === b) return true;
  return (
    a.messageId === b.messageId &&
    a.tokens === b.tokens &&
    a.kind === b.kind &&
    a.role === b.role &&
    a.toolName === b.toolName &&
    a.preview === b.preview &&
    a.section === b.section &&
    a.label === b.label &&
    a.source === b.source &&
    a.path === b.path &&
    a.textHash === b.textHash &&
    a.badges.length === b.badges.length &&
    a.badges.every((badge, i) => badge === b.badges[i])
  );
}

/** Rebuilds an item list from its base's list and the stored change. */
export function applyItemsDelta(base: readonly RequestItem[], removed: readonly string[], added: ReadonlyArray<readonly [number, RequestItem]>): RequestItem[] {
  const gone = new Set(removed);
  const kept = base.filter((item) => !gone.has(item.messageId));
  const out: RequestItem[] = [];
  let next = 0;
  for (const [at, item] of added) {
    while (out.length < at && next < kept.length) out.push(kept[next++]);
    out.push(item);
  }
  while (next < kept.length) out.push(kept[next++]);
  listWork.positionsRead += base.length + out.length;
  return out;
}

/** Above this many items added inside a list (not at its end), a change is applied by rebuilding the list once. */
const INSERTS_IN_PLACE = 16;

/**
 * A list a chain of stored changes is replayed on, in place: a change costs what it changed and how
 * far from the end it lies, not the list's length. Changes are mostly at the end (a request's new
 * messages, the message framing item that changes with every request); replaying the chain of a
 * session that grew to 10,000 items with a new list per change built 25 million entries.
 */
export class ReplayedItemList {
  readonly items: RequestItem[];
  /** Message id → how many items have it: a removal scans back from the end until it found them all. */
  private readonly counts = new Map<string, number>();

  constructor(full: readonly RequestItem[]) {
    this.items = [...full];
    for (const item of full) this.counts.set(item.messageId, (this.counts.get(item.messageId) ?? 0) + 1);
  }

  /** The list as it stands, its id counts handed on (encoding the next change asks for them), replayed no further. */
  done(): RequestItem[] {
    knownItemIdCounts(this.items, this.counts);
    return this.items;
  }

  /** What applyItemsDelta(items, removed, added) gives, done on `items`. */
  apply(removed: readonly string[], added: ReadonlyArray<readonly [number, RequestItem]>): void {
    const list = this.items;
    if (removed.length) {
      const gone = new Set(removed);
      let left = 0;
      for (const id of gone) left += this.counts.get(id) ?? 0;
      let from = list.length;
      while (left > 0 && from > 0) if (gone.has(list[--from].messageId)) left--;
      let kept = from;
      for (let i = from; i < list.length; i++) {
        const item = list[i];
        if (gone.has(item.messageId)) this.counts.set(item.messageId, this.counts.get(item.messageId)! - 1);
        else list[kept++] = item;
      }
      listWork.positionsRead += list.length - from;
      list.length = kept;
    }
    for (const [, item] of added) this.counts.set(item.messageId, (this.counts.get(item.messageId) ?? 0) + 1);
    const inside = added.filter(([at]) => at < list.length).length;
    if (inside > INSERTS_IN_PLACE) {
      const rebuilt = applyItemsDelta(list, [], added);
      list.length = rebuilt.length;
      rebuilt.forEach((item, i) => (list[i] = item));
      return;
    }
    for (const [at, item] of added) {
      if (at < list.length) {
        listWork.positionsRead += list.length - at;
        list.splice(at, 0, item);
      } else list.push(item);
    }
    listWork.positionsRead += added.length;
  }
}

/**
 * The common case, found without indexing every item: the lists share a start and an end (mostly
 * the same item objects, as a session reuses them while a message is unchanged) and differ in one
 * stretch between them. Undefined when that stretch is not small, or an id in it also names an item
 * that stays (the general comparison then decides). When the session told how the list was made
 * from the base (model/listLineage.ts), the shared start is not compared again.
 */
function* positionalChange(items: readonly RequestItem[], base: { id: string; items: readonly RequestItem[] }): Generator<void, StoredRequestItems | undefined> {
  const before = base.items;
  const shorter = Math.min(before.length, items.length);
  let start = Math.min(shorter, unchangedBefore(markOf(before), items));
  const known = start;
  start += yield* equalRun(before, start, items, start, shorter - start);
  let end = 0;
  while (end < shorter - start && sameItem(before[before.length - 1 - end], items[items.length - 1 - end])) end++;
  listWork.positionsRead += start - known + end + 1;
  const endBefore = before.length - end;
  const endItems = items.length - end;
  let gone = before.slice(start, endBefore);
  let added: Array<[number, RequestItem]> = items.slice(start, endItems).map((item, j) => [start + j, item]);
  if (gone.length + added.length >= items.length) {
    const split = yield* aroundSharedRun(before, items, start, endBefore, endItems);
    if (!split) return undefined;
    ({ gone, added } = split);
    if (gone.length + added.length >= items.length) return undefined;
  }
  const removed = new Set(gone.map((item) => item.messageId));
  if (removed.size !== gone.length) return undefined;
  // Each removed id is once in the stretch, so it also names an item that stays when the list has it more than once.
  const counts = itemIdCounts(before);
  for (const id of removed) if ((counts.get(id) ?? 0) > 1) return undefined;
  carryItemIdCounts(before, items, gone, added.map(([, item]) => item));
  return { base: base.id, removed: [...removed], added };
}

/** How far into the changed stretch the shared run is looked for: the prompt's own items (system, tools) come first. */
const REALIGN_WITHIN = 1_024;

/**
 * Two changed stretches around one long shared run: the prompt's items at the head changed (a tool
 * turned on, an MCP server's tools arrived, a reopened window's prompt) and messages were added at
 * the end. Finds the first item of the stretch `before[start, endBefore)` that is again in
 * `items[start, endItems)` near its start, and follows the run of equal items from there.
 */
function* aroundSharedRun(before: readonly RequestItem[], items: readonly RequestItem[], start: number, endBefore: number, endItems: number): Generator<void, { gone: RequestItem[]; added: Array<[number, RequestItem]> } | undefined> {
  const at = new Map<string, number>();
  for (let i = start; i < Math.min(endBefore, start + REALIGN_WITHIN); i++) if (!at.has(before[i].messageId)) at.set(before[i].messageId, i);
  for (let j = start; j < Math.min(endItems, start + REALIGN_WITHIN); j++) {
    const i = at.get(items[j].messageId);
    if (i === undefined || !sameItem(before[i], items[j])) continue;
    const run = 1 + (yield* equalRun(before, i + 1, items, j + 1, Math.min(endBefore - i, endItems - j) - 1));
    listWork.positionsRead += run;
    // A short run (an item that stayed among others that changed) is not the shared one: look on.
    if (i - start + (endBefore - i - run) + (endItems - start) - run >= items.length) continue;
    const gone = [...before.slice(start, i), ...before.slice(i + run, endBefore)];
    const added: Array<[number, RequestItem]> = [];
    for (let k = start; k < j; k++) added.push([k, items[k]]);
    for (let k = j + run; k < endItems; k++) added.push([k, items[k]]);
    return { gone, added };
  }
  return undefined;
}

/**
 * The change from `base` (the list of record `baseId`) to `items`, or the full list when a change
 * would not be smaller or could not rebuild the list exactly (items that moved, repeated ids).
 */
export function encodeRequestItems(items: readonly RequestItem[], base?: { id: string; items: readonly RequestItem[] }): StoredRequestItems {
  const steps = encodeSteps(items, base);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * What encodeRequestItems gives, with a turn of the event loop after every slice of comparisons: a
 * window's first record compares every item of the session's stored list with the new one (not the
 * same objects), 50,000 of them in a session that long.
 */
export async function encodeRequestItemsInSlices(items: readonly RequestItem[], base: { id: string; items: readonly RequestItem[] } | undefined, nextTurn: () => Promise<void>): Promise<StoredRequestItems> {
  const steps = encodeSteps(items, base);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    listWork.slices++;
    await nextTurn();
  }
}

/** Items compared between two turns of the event loop (encodeRequestItemsInSlices). */
const COMPARED_PER_SLICE = 8_192;

/** How many items from `before[i]` and `items[j]` on are the same, up to `limit`; a pause after each slice of them. */
function* equalRun(before: readonly RequestItem[], i: number, items: readonly RequestItem[], j: number, limit: number): Generator<void, number> {
  let run = 0;
  while (run < limit && sameItem(before[i + run], items[j + run])) {
    run++;
    if (run % COMPARED_PER_SLICE === 0) yield;
  }
  return run;
}

function* encodeSteps(items: readonly RequestItem[], base?: { id: string; items: readonly RequestItem[] }): Generator<void, StoredRequestItems> {
  if (!base) return { full: [...items] };
  const positional = yield* positionalChange(items, base);
  if (positional) return positional;
  listWork.listsIndexed++;
  const before = new Map<string, RequestItem>();
  for (const item of base.items) {
    if (before.has(item.messageId)) return { full: [...items] };
    before.set(item.messageId, item);
  }
  const unchanged = new Set<string>();
  const added: Array<[number, RequestItem]> = [];
  items.forEach((item, at) => {
    const old = before.get(item.messageId);
    if (old && !unchanged.has(item.messageId) && sameItem(old, item)) unchanged.add(item.messageId);
    else added.push([at, item]);
  });
  if (added.length >= items.length) return { full: [...items] };
  const removed = base.items.filter((item) => !unchanged.has(item.messageId)).map((item) => item.messageId);
  const rebuilt = applyItemsDelta(base.items, removed, added);
  if (rebuilt.length !== items.length || rebuilt.some((item, i) => item !== items[i] && !sameItem(item, items[i]))) return { full: [...items] };
  return { base: base.id, removed, added };
}
