import { chatEntryKey, type ChatEntriesPatch, type ChatEntry } from '../protocol/chat';

/** Entries rebuilt on every refresh (turn figures, notices, streaming text): small, compared by value. */
function comparedByValue(entry: ChatEntry): boolean {
  return entry.kind === 'usage' || entry.kind === 'notice' || (entry.kind === 'assistant' && Boolean(entry.streaming));
}

/**
 * What the chat webview holds, as the host last sent it, and the change to a new entry list.
 * Stored messages' entries are memoized (the same object while unchanged), so comparing them costs
 * a pointer each; only entries rebuilt every time are compared by value. A refresh of a long chat
 * then sends what changed, not the whole conversation.
 */
export class SentChatEntries {
  private order: string[] = [];
  private sent = new Map<string, { entry: ChatEntry; json?: string }>();
  private readonly keys = new WeakMap<ChatEntry, string>();

  /** Forget what was sent: the next change carries every entry. */
  reset(): void {
    this.order = [];
    this.sent = new Map();
  }

  private keyOf(entry: ChatEntry): string {
    let key = this.keys.get(entry);
    if (key === undefined) {
      key = chatEntryKey(entry);
      this.keys.set(entry, key);
    }
    return key;
  }

  /** Records `entries` as sent; returns the change from the previous list. */
  change(entries: readonly ChatEntry[]): ChatEntriesPatch {
    const order: string[] = new Array<string>(entries.length);
    const upserts: ChatEntry[] = [];
    let keep = 0;
    let diverged = false;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const key = this.keyOf(entry);
      order[i] = key;
      if (!diverged && this.order[i] === key) keep = i + 1;
      else diverged = true;
      const before = this.sent.get(key);
      const json = comparedByValue(entry) ? JSON.stringify(entry) : undefined;
      const same = before !== undefined && (json === undefined ? before.entry === entry : before.json === json);
      if (!same) {
        upserts.push(entry);
        this.sent.set(key, { entry, json });
      }
    }
    // Forget entries that left the list (they are all after the kept part).
    if (keep < this.order.length) {
      const present = new Set(order.slice(keep));
      for (let i = keep; i < this.order.length; i++) if (!present.has(this.order[i])) this.sent.delete(this.order[i]);
    }
    this.order = order;
    return { keep, tail: order.slice(keep), upserts };
  }
}
