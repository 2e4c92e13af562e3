import { MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_OVERHEAD_TOKENS } from '../accounting/messageTokens';
import { fixedTotal, type FixedComponents } from '../accounting/usageBasis';
import { previewOf } from '../compaction/removedItems';
import { requestItemOf } from '../compaction/requestItems';
import { noteMessage } from '../model/factories';
import type { Message } from '../model/message';
import type { RequestItem } from '../model/records';
import { textHash } from '../model/textHash';
import { DYNAMIC_NOTE_ID, dynamicNoteText, fixedOf, type PromptSection, type PromptSections } from '../prompt/promptSections';

export { DYNAMIC_NOTE_ID };

/** A request's messages as sent, and its items. */
export interface RequestContent {
  messages: Message[];
  items: RequestItem[];
}

/**
 * Where the dynamic part goes: right before the latest message the user typed, so the user's words
 * stay after it and everything before it stays byte-identical when the dynamic part changes. With
 * no user message, at the end.
 */
export function dynamicNoteIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user' && messages[i].kind === 'user') return i;
  return messages.length;
}

function sectionItem(section: PromptSection, where: 'system' | 'dynamic'): RequestItem {
  return {
    messageId: section.id,
    role: where === 'system' ? 'system' : 'user',
    kind: section.kind,
    tokens: section.tokens,
    badges: where === 'dynamic' ? ['dynamic'] : [],
    preview: previewOf(noteMessage(section.text, { id: section.id })),
    section: where,
    label: section.label,
    path: section.path,
    source: section.source,
    textHash: textHash(section.text),
  };
}

/**
 * The messages a request sends and its items, in prompt order, such that the item tokens add up
 * exactly to the request's estimate (fixed components + every visible message's count):
 * - each system section, tool schema and dynamic section counts its own text;
 * - a message counts its content, tool calls and images (countMessage without the per-message
 *   framing); the framing of every message sent, the dynamic note included, is the item
 *   "Message framing" (MESSAGE_OVERHEAD_TOKENS each);
 * - the framing of every offered tool is the item "Tool framing" (TOOL_CALL_OVERHEAD_TOKENS each);
 *   deferred tools are listed with 0 tokens.
 * Without sections (a prompt that gives only its numbers), one item stands for the fixed tokens.
 */
export function requestContent(args: { messages: readonly Message[]; sections?: PromptSections; fixed: FixedComponents; count: (m: Message) => number }): RequestContent {
  const { sections } = args;
  const items: RequestItem[] = [];
  if (sections) {
    for (const s of sections.system) items.push(sectionItem(s, 'system'));
    for (const t of sections.tools) {
      items.push({
        messageId: t.id,
        role: 'tools',
        kind: 'tool-schema',
        tokens: t.tokens,
        badges: t.deferred ? ['deferred'] : [],
        toolName: t.name,
        preview: t.deferred ? `deferred, not sent (tool_search finds it): ${t.description}` : t.description,
        section: 'tools',
        label: t.name,
        source: t.source,
        textHash: textHash(t.text),
      });
    }
    const offered = sections.tools.filter((t) => !t.deferred).length;
    if (offered) items.push(framingItem('framing:tools', 'Tool framing', offered * TOOL_CALL_OVERHEAD_TOKENS, `${TOOL_CALL_OVERHEAD_TOKENS} tokens per tool × ${offered} tools`, 'tools'));
  }
  // A prompt whose numbers say more than its sections (or that gives numbers only) still adds up: the rest is one item.
  const unitemized = fixedTotal(args.fixed) - (sections ? fixedTotal(fixedOf(sections)) : 0);
  if (unitemized !== 0) {
    items.push({ messageId: 'system:prompt', role: 'system', kind: 'system-section', tokens: unitemized, badges: [], preview: 'prompt tokens given as numbers only', section: 'system', label: 'Prompt outside the conversation' });
  }
  const messages = [...args.messages];
  const dynamic = sections?.dynamic ?? [];
  const at = dynamicNoteIndex(messages);
  if (dynamic.length) messages.splice(at, 0, noteMessage(dynamicNoteText(dynamic), { id: DYNAMIC_NOTE_ID }));
  const noteId = dynamic.length ? DYNAMIC_NOTE_ID : undefined;
  const overhead = MESSAGE_OVERHEAD_TOKENS;
  for (const message of messages) {
    if (message.id === noteId) {
      for (const s of dynamic) items.push(sectionItem(s, 'dynamic'));
      continue;
    }
    items.push(conversationItem(message, args.count(message) - overhead));
  }
  if (messages.length) items.push(framingItem('framing:messages', 'Message framing', messages.length * MESSAGE_OVERHEAD_TOKENS, `${MESSAGE_OVERHEAD_TOKENS} tokens per message × ${messages.length} messages`, 'conversation'));
  return { messages, items };
}

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

function framingItem(id: string, label: string, tokens: number, preview: string, section: 'tools' | 'conversation'): RequestItem {
  return { messageId: id, role: section === 'tools' ? 'tools' : 'framing', kind: 'framing', tokens, badges: [], preview, section, label };
}

/** The text shown for a framing item (it has no text of its own on the wire). */
export function framingText(item: RequestItem): string {
  return `${item.label ?? 'Framing'}: ${item.preview}.\nRole markers, separators and ids the wire format adds around each ${item.messageId === 'framing:tools' ? 'tool definition' : 'message'}; counted as a fixed estimate.`;
}
