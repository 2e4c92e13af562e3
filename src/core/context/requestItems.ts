import { MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_OVERHEAD_TOKENS } from '../accounting/messageTokens';
import { fixedTotal, type FixedComponents } from '../accounting/usageBasis';
import { previewOf } from '../compaction/removedItems';
import { noteMessage } from '../model/factories';
import type { Message } from '../model/message';
import type { RequestItem } from '../model/records';
import { textHash } from '../model/textHash';
import { ConversationItems } from './conversationItems';
import type { RequestLineage } from './requestLineage';
import { DYNAMIC_NOTE_ID, dynamicNoteText, fixedOf, type PromptSection, type PromptSections } from '../prompt/promptSections';

export { DYNAMIC_NOTE_ID };

/** A request's messages as sent, and its items. */
export interface RequestContent {
  messages: Message[];
  items: RequestItem[];
}

/**
 * Where the dynamic part goes: after the conversation, so that everything sent before it stays
 * byte-identical from request to request and from turn to turn. A provider's cache then keeps the
 * whole conversation: a note placed before the latest user message would leave the previous note's
 * place empty on the next turn, and everything after that place (the whole previous turn) would be
 * paid again. A reply the model is continuing (trailing assistant messages) stays last.
 */
export function dynamicNoteIndex(messages: readonly Message[]): number {
  let at = messages.length;
  while (at > 0 && messages[at - 1].role === 'assistant') at--;
  return at;
}

/**
 * Items of prompt sections and tools, the same object while the section is: the lists of
 * consecutive requests then share their start as the same objects, which is what keeps comparing
 * and counting them from request to request cheap (and the text is hashed once).
 */
const promptItems = new WeakMap<object, { where: string; item: RequestItem }>();

function sectionItem(section: PromptSection, where: 'system' | 'dynamic'): RequestItem {
  const known = promptItems.get(section);
  if (known?.where === where) return known.item;
  const item = newSectionItem(section, where);
  promptItems.set(section, { where, item });
  return item;
}

function newSectionItem(section: PromptSection, where: 'system' | 'dynamic'): RequestItem {
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

function toolItem(t: PromptSections['tools'][number]): RequestItem {
  const known = promptItems.get(t);
  if (known?.where === 'tools') return known.item;
  const item: RequestItem = {
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
  };
  promptItems.set(t, { where: 'tools', item });
  return item;
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
 * `reuse`: the messages' items of the previous request, updated where the messages changed;
 * `lineage`: told how this request's lists differ from the previous request's.
 */
export function requestContent(args: { messages: readonly Message[]; sections?: PromptSections; fixed: FixedComponents; count: (m: Message) => number; reuse?: ConversationItems; lineage?: RequestLineage }): RequestContent {
  const { sections } = args;
  let items: RequestItem[] = [];
  if (sections) {
    for (const s of sections.system) items.push(sectionItem(s, 'system'));
    for (const t of sections.tools) items.push(toolItem(t));
    const offered = sections.tools.filter((t) => !t.deferred).length;
    const deferred = sections.tools.length - offered;
    const sent = `${TOOL_CALL_OVERHEAD_TOKENS} tokens per tool × ${offered} tool${offered === 1 ? '' : 's'} sent${deferred ? ` (${deferred} deferred: listed, not sent)` : ''}`;
    if (offered) items.push(framingItem('framing:tools', 'Tool framing', offered * TOOL_CALL_OVERHEAD_TOKENS, sent, 'tools'));
  }
  // A prompt whose numbers say more than its sections (or that gives numbers only) still adds up: the rest is one item.
  const unitemized = fixedTotal(args.fixed) - (sections ? fixedTotal(fixedOf(sections)) : 0);
  if (unitemized !== 0) {
    items.push(promptTotalItem(unitemized));
  }
  const promptItems = items.length;
  const dynamic = sections?.dynamic ?? [];
  const at = dynamic.length ? dynamicNoteIndex(args.messages) : -1;
  const reuse = args.reuse ?? new ConversationItems();
  const conversation = reuse.itemsFor(args.messages, args.count);
  const noteMessages = dynamic.length ? [noteMessage(dynamicNoteText(dynamic), { id: DYNAMIC_NOTE_ID })] : [];
  const note = dynamic.map((s) => sectionItem(s, 'dynamic'));
  const insertAt = at < 0 ? args.messages.length : at;
  const messages = spliced([], args.messages, insertAt, noteMessages, []);
  const framing = messages.length ? [framingItem('framing:messages', 'Message framing', messages.length * MESSAGE_OVERHEAD_TOKENS, `${MESSAGE_OVERHEAD_TOKENS} tokens per message × ${messages.length} messages`, 'conversation')] : [];
  items = spliced(items, conversation, insertAt, note, framing);
  let remapped = false;
  // A message of the conversation with the note's own id (none in practice) is taken for the note too.
  if (dynamic.length && reuse.holdsId(DYNAMIC_NOTE_ID)) {
    items = items.flatMap((item) => (item.messageId === DYNAMIC_NOTE_ID && item.section === 'conversation' ? note : [item]));
    remapped = true;
  }
  args.lineage?.note({ messages, items, source: args.messages, conversation, promptItems, noteAt: at, remapped, withSections: sections !== undefined });
  return { messages, items };
}

/**
 * `head`, then `list` with `inserted` before its position `at`, then `tail`, as one array made by
 * one copy (concat), the part of `list` after `at` then moved along: at 50,000 messages a list is
 * 400 KB, and each one made is a large object the next full collection has to free.
 */
function spliced<T>(head: readonly T[], list: readonly T[], at: number, inserted: readonly T[], tail: readonly T[]): T[] {
  const out = head.concat(list, inserted, tail);
  const n = inserted.length;
  if (n && at < list.length) {
    const from = head.length + at;
    for (let i = head.length + list.length - 1; i >= from; i--) out[i + n] = out[i];
    for (let j = 0; j < n; j++) out[from + j] = inserted[j];
  }
  return out;
}

/**
 * The items made here rather than kept with a section or a message, the same object while their
 * fields are: consecutive requests then open with the same objects (see RequestLineage).
 */
const madeItems = new Map<string, RequestItem>();

function sameMadeItem(item: RequestItem): RequestItem {
  const known = madeItems.get(item.messageId);
  if (known && known.tokens === item.tokens && known.preview === item.preview && known.label === item.label && known.role === item.role && known.section === item.section) return known;
  madeItems.set(item.messageId, item);
  return item;
}

function promptTotalItem(tokens: number): RequestItem {
  return sameMadeItem({ messageId: 'system:prompt', role: 'system', kind: 'system-section', tokens, badges: [], preview: `${tokens.toLocaleString('en-US')} tokens of instructions and tool definitions, recorded as a total rather than part by part`, section: 'system', label: 'Prompt outside the conversation' });
}

function framingItem(id: string, label: string, tokens: number, preview: string, section: 'tools' | 'conversation'): RequestItem {
  return sameMadeItem({ messageId: id, role: section === 'tools' ? 'tools' : 'framing', kind: 'framing', tokens, badges: [], preview, section, label });
}

/** The text shown for a framing item (it has no text of its own on the wire). */
export function framingText(item: RequestItem): string {
  return `${item.label ?? 'Framing'}: ${item.preview}.\nRole markers, separators and ids the wire format adds around each ${item.messageId === 'framing:tools' ? 'tool definition' : 'message'}; counted as a fixed estimate.`;
}
