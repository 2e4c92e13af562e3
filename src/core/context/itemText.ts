import type { Message } from '../model/message';
import type { RequestItem, RequestUsageRecord } from '../model/records';
import type { SessionStore } from '../ports/sessionStore';
import { framingText } from './requestItems';

/** At most this many characters of an item's text are sent to the inspector at once. */
export const ITEM_TEXT_MAX_CHARS = 256 * 1024;

/** A message as it was sent: its text, and each tool call with its raw arguments. */
export function messageText(message: Message): string {
  const calls = (message.toolCalls ?? []).map((call) => `[tool call ${call.name} (${call.id})]\n${call.arguments}`);
  return [message.content, ...calls].filter((part) => part.length > 0).join('\n\n');
}

/** The text a prompt item carried, from the `texts` of the session's usage records. */
function storedText(usage: readonly RequestUsageRecord[], hash: string): string | undefined {
  for (const record of usage) {
    const text = record.texts?.[hash];
    if (text !== undefined) return text;
  }
  return undefined;
}

/**
 * The exact text of one item: for a request (`requestIndex`) from its stored record — a prompt
 * part's text by hash, a message from the working context or the transcript — and without one, a
 * message of the working context now. Throws with a clear message when the item is not known.
 */
export interface RequestItemQuery {
  store: SessionStore;
  sessionId: string;
  requestIndex?: number;
  itemId: string;
  working: readonly Message[];
  /** The items of the next request, for an item of the working context that is not a message (framing). */
  current?: readonly RequestItem[];
  /** The request's usage record with its items, when the caller has read it already. */
  record?: RequestUsageRecord;
}

/** One item's text for the inspector: cut at ITEM_TEXT_MAX_CHARS, with the full length. */
export async function requestItemText(args: RequestItemQuery): Promise<{ text: string; totalChars: number }> {
  const { text } = await requestItemFullText(args);
  const totalChars = text.length;
  return { text: totalChars > ITEM_TEXT_MAX_CHARS ? `${text.slice(0, ITEM_TEXT_MAX_CHARS)}\n[… ${(totalChars - ITEM_TEXT_MAX_CHARS).toLocaleString('en-US')} more characters …]` : text, totalChars };
}

/** Whether an item is a conversation message (items recorded before there were parts are). */
export function inConversation(item: RequestItem): boolean {
  return !item.section || item.section === 'conversation';
}

/** One item's whole text (for an editor), and the item when it is known. */
export async function requestItemFullText(args: RequestItemQuery): Promise<{ text: string; item?: RequestItem }> {
  const { store, sessionId, itemId } = args;
  let item: RequestItem | undefined;
  if (args.requestIndex !== undefined) {
    const record = args.record ?? (await store.requestUsageAt(sessionId, args.requestIndex));
    if (!record) throw new Error(`request #${args.requestIndex} is not stored in this session`);
    item = record.items.find((i) => i.messageId === itemId);
    if (!item) throw new Error(`request #${args.requestIndex} has no item "${itemId}"`);
  } else {
    item = args.current?.find((i) => i.messageId === itemId);
  }
  let text: string | undefined;
  // Texts are kept with the figures (not with the item lists): the list without items has them. A
  // prompt part of the next request was stored with the first request that carried it.
  const stored = item?.textHash && item.kind !== 'framing' ? storedText(await store.listRequestUsage(sessionId, { items: false }), item.textHash) : undefined;
  if (item?.kind === 'framing') text = framingText(item);
  else if (stored !== undefined) text = stored;
  else if (item?.textHash && args.requestIndex !== undefined) {
    throw new Error(`the text of "${item.label ?? itemId}" was not stored (a request recorded before texts were kept)`);
  } else {
    if (item && !inConversation(item)) throw new Error(`"${item.label ?? itemId}" has no stored text: open it in a request`);
    const message = args.working.find((m) => m.id === itemId) ?? (await store.loadMessages(sessionId, [itemId]))[0];
    if (!message) throw new Error(`message "${itemId}" is no longer stored`);
    text = messageText(message);
  }
  return { text, item };
}
