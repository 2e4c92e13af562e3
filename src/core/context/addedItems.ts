import { transcriptIdsOf } from '../compaction/removedItems';
import { placeOf, type Message } from '../model/message';
import type { AddedItem } from '../model/records';

/**
 * The items a compaction put in the working context (`after` holds them, `before` did not), each
 * with the items of `before` it replaced, in their order: those whose transcript messages it all
 * stands for. An item that stands for nothing of `before` (re-injected instructions) has no parts.
 */
export function addedItems(before: readonly Message[], after: readonly Message[]): AddedItem[] {
  const had = new Set(before.map((m) => m.id));
  const added = after.filter((m) => !had.has(m.id));
  if (added.length === 0) return [];
  // Which item of `before` stands for each transcript message.
  const holder = new Map<string, number>();
  before.forEach((m, i) => {
    for (const id of transcriptIdsOf(m)) holder.set(id, i);
  });
  return added.map((message) => {
    const covers = new Set(transcriptIdsOf(message));
    const candidates = new Set<number>();
    for (const id of covers) {
      const at = holder.get(id);
      if (at !== undefined) candidates.add(at);
    }
    const parts = [...candidates]
      .sort((a, b) => a - b)
      .filter((i) => transcriptIdsOf(before[i]).every((id) => covers.has(id)))
      .map((i) => before[i].id);
    return { message, parts };
  });
}

/**
 * `after` with each run of items a compaction put in (those `before` did not hold) placed in time
 * between the items around it, when their own times do not stand in order there (a checkpoint's
 * time is that of the last message it replaced, but it stands after the user messages it kept):
 * each gets MessageMeta.placedAt, evenly between its neighbours. A working context stays in order
 * of placeOf, which is what lets a rewind put the parts of a summary back where they stood.
 */
export function placeAdded(before: readonly Message[], after: readonly Message[]): Message[] {
  const had = new Set(before.map((m) => m.id));
  const out = [...after];
  for (let i = 0; i < out.length; ) {
    if (had.has(out[i].id)) {
      i++;
      continue;
    }
    let j = i;
    while (j < out.length && !had.has(out[j].id)) j++;
    const low = i > 0 ? placeOf(out[i - 1]) : undefined;
    const high = j < out.length ? placeOf(out[j]) : undefined;
    const own = out.slice(i, j).map(placeOf);
    const fits = own.every((t, k) => (low === undefined || t > low) && (high === undefined || t < high) && (k === 0 || t > own[k - 1]));
    if (!fits) {
      const steps = j - i + 1;
      const from = low ?? (high ?? 0) - steps;
      const to = high ?? from + steps;
      for (let k = i; k < j; k++) out[k] = { ...out[k], meta: { ...out[k].meta, placedAt: from + ((to - from) * (k - i + 1)) / steps } };
    }
    i = j;
  }
  return out;
}
