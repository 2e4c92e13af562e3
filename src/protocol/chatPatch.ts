import { chatEntryKey, type ChatEntriesPatch, type ChatEntry } from './chat';

/** The chat's entry list as the webview holds it: keys in order, and each key's entry. */
export interface HeldChatEntries {
  order: string[];
  byKey: Map<string, ChatEntry>;
}

/**
 * Applies a change sent by the host. Unchanged entries keep their object, so a renderer can tell
 * what to redraw by identity. A key the webview does not hold (a change that arrived out of step)
 * is reported, so the webview can ask for the whole state again.
 */
export function applyChatEntriesPatch(held: HeldChatEntries, patch: ChatEntriesPatch): { entries: ChatEntry[]; missing: string[] } {
  for (const entry of patch.upserts) held.byKey.set(chatEntryKey(entry), entry);
  held.order = [...held.order.slice(0, Math.max(0, Math.min(patch.keep, held.order.length))), ...patch.tail];
  const live = new Set(held.order);
  for (const key of [...held.byKey.keys()]) if (!live.has(key)) held.byKey.delete(key);
  const entries: ChatEntry[] = [];
  const missing: string[] = [];
  for (const key of held.order) {
    const entry = held.byKey.get(key);
    if (entry) entries.push(entry);
    else missing.push(key);
  }
  return { entries, missing };
}
