import { chatEntryKey, type ChatEntriesPatch, type ChatEntry } from '../../protocol/chat';
import type { ChatEntries } from './chatEntries';
import { chatTail, type ChatExtras } from './chatState';

/**
 * What the chat webview holds, and the change that brings it up to date. The stored entries'
 * changes come from the fold itself (which entries it added or changed, and from where its
 * order changed): nothing stored is compared. The tail and the cards marked for an approval are
 * a handful of entries, compared by their JSON with what was sent.
 */
export class ChatEntriesSent {
  /** How many of the stored entries, in order, the webview holds. */
  private storedHeld = 0;
  /** JSON of each tail entry and marked card sent, by key. */
  private shown = new Map<string, string>();

  /** The whole list, as the `state` message carries it; what follows is a change of it. */
  whole(stored: ChatEntries, extras: ChatExtras): ChatEntry[] {
    stored.takeChanges();
    const { tail, cards } = chatTail(stored, extras);
    this.storedHeld = stored.keys.length;
    this.shown = new Map([...cards, ...tail.map((e) => [chatEntryKey(e), e] as const)].map(([key, e]) => [key, JSON.stringify(e)]));
    return [...stored.keys.map((key) => cards.get(key) ?? stored.entry(key)!), ...tail];
  }

  change(stored: ChatEntries, extras: ChatExtras): ChatEntriesPatch {
    const { from, changed } = stored.takeChanges();
    const { tail, cards } = chatTail(stored, extras);
    const keys = stored.keys;
    const keep = Math.min(from, this.storedHeld);
    const upserts = new Map<string, ChatEntry>();
    for (const key of changed) {
      const entry = stored.entry(key);
      if (entry) upserts.set(key, cards.get(key) ?? entry);
    }
    const shown = new Map<string, string>();
    const offer = (key: string, entry: ChatEntry) => {
      const json = JSON.stringify(entry);
      shown.set(key, json);
      if (this.shown.get(key) !== json) upserts.set(key, entry);
    };
    for (const [key, card] of cards) offer(key, card);
    // A card no longer waiting goes back to its stored entry.
    for (const key of this.shown.keys()) if (!cards.has(key) && stored.entry(key) && !shown.has(key)) upserts.set(key, stored.entry(key)!);
    const tailKeys = tail.map((entry) => {
      const key = chatEntryKey(entry);
      offer(key, entry);
      return key;
    });
    this.shown = shown;
    this.storedHeld = keys.length;
    return { keep, tail: [...keys.slice(keep), ...tailKeys], upserts: [...upserts.values()] };
  }
}
