import { MESSAGE_OVERHEAD_TOKENS } from '../accounting/messageTokens';
import { requestItemOf } from '../compaction/requestItems';
import { listWork, markOf, noteEdit, trackEdits, unchangedBefore, type ListMark } from '../model/listLineage';
import type { Message } from '../model/message';
import type { RequestItem } from '../model/records';

/**
 * A message's item, the same object from request to request while the message (an immutable
 * object), its count and its pin are unchanged: building 10,000 previews for every request was most
 * of a long session's planning time, and the stored change between requests compares by identity first.
 * Kept in a hidden slot beside the message's data, as its count is (see messageTokens.ts): a
 * WeakMap lookup per message was a large share of planning a long context.
 */
const ITEM = Symbol('tally.requestItem');
interface ItemSlot {
  tokens: number;
  pinned: boolean;
  item: RequestItem;
}
type WithItemSlot = Message & { [ITEM]?: ItemSlot };
/** For the rare message that cannot take the slot (frozen). */
const frozenItems = new WeakMap<Message, ItemSlot>();

function conversationItem(message: Message, tokens: number): RequestItem {
  const known = (message as WithItemSlot)[ITEM] ?? frozenItems.get(message);
  const pinned = Boolean(message.pinned);
  if (known && known.tokens === tokens && known.pinned === pinned) return known.item;
  const item: RequestItem = { ...requestItemOf(message, tokens), section: 'conversation' };
  const slot: ItemSlot = { tokens, pinned, item };
  if (Object.isExtensible(message)) Object.defineProperty(message, ITEM, { value: slot, writable: true, configurable: true, enumerable: false });
  else frozenItems.set(message, slot);
  return item;
}
/**
 * The items of a request's messages, kept from request to request: only positions whose message
 * object changed (and messages added at the end) get their item looked up; the others keep theirs
 * without reading the message at all (reading 50,000 messages scattered in memory costs more than
 * comparing 50,000 references), and a list whose lineage tells where it changed is compared from
 * there (model/listLineage.ts). The items list is changed in place and tells its own lineage what
 * changed. A different count function starts over.
 */
export class ConversationItems {
  private messages: Message[] = [];
  private items: RequestItem[] = trackEdits([]);
  private countUsed?: (m: Message) => number;
  private mark?: ListMark;
  /** Message id → how many of the messages have it, for the few ids a caller asks about. */
  private readonly watched = new Map<string, number>();

  /** One item per message, in order. Read-only: it is updated by the next call. */
  itemsFor(messages: readonly Message[], count: (m: Message) => number): readonly RequestItem[] {
    if (count !== this.countUsed) {
      this.messages = [];
      this.items = trackEdits([]);
      this.mark = undefined;
      for (const id of this.watched.keys()) this.watched.set(id, 0);
      this.countUsed = count;
    }
    const known = this.messages;
    const shared = Math.min(known.length, messages.length);
    const from = Math.min(shared, unchangedBefore(this.mark, messages));
    listWork.positionsRead += Math.max(known.length, messages.length) - from;
    let changed = known.length === messages.length ? Infinity : shared;
    for (let i = from; i < shared; i++) {
      if (known[i] === messages[i]) continue;
      this.forget(known[i]);
      this.keep(i, messages[i], count);
      if (i < changed) changed = i;
    }
    for (let i = shared; i < known.length; i++) this.forget(known[i]);
    known.length = this.items.length = shared;
    for (let i = shared; i < messages.length; i++) this.keep(i, messages[i], count);
    if (changed !== Infinity) noteEdit(this.items, changed);
    this.mark = markOf(messages);
    return this.items;
  }

  /** True when one of the messages last given has this id. */
  holdsId(id: string): boolean {
    if (!this.watched.has(id)) this.watched.set(id, this.messages.filter((m) => m.id === id).length);
    return this.watched.get(id)! > 0;
  }

  private keep(at: number, message: Message, count: (m: Message) => number): void {
    this.messages[at] = message;
    this.items[at] = conversationItem(message, count(message) - MESSAGE_OVERHEAD_TOKENS);
    const n = this.watched.get(message.id);
    if (n !== undefined) this.watched.set(message.id, n + 1);
  }

  private forget(message: Message): void {
    const n = this.watched.get(message.id);
    if (n !== undefined) this.watched.set(message.id, n - 1);
  }
}
