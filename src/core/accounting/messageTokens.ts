import type { Message } from '../model/message';
import type { ToolDefinition } from '../model/tool';
import type { TokenCounter } from './tokenizer';

/** Per-message framing tokens (role markers, separators) as chat formats add them. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Per tool call: id, type and argument framing. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;
/** A fixed estimate per attached image (providers bill images by size; this is a middle value). */
export const IMAGE_TOKEN_ESTIMATE = 1_000;

export function countText(text: string, counter: TokenCounter): number {
  return counter.count(text);
}

/**
 * Counts memoized per message object and encoding, in a hidden slot beside the message's data: a
 * non-enumerable symbol property, which object spreads, JSON and structured clones never copy. So a
 * changed message (always a new object) is counted afresh, and nothing has to clear a count by
 * hand. (A plain property lookup: a WeakMap made per-turn accounting several times slower.)
 */
const COUNT = Symbol('tally.tokenCount');
interface CountSlot {
  encoding: string;
  tokens: number;
}
type WithSlot = Message & { [COUNT]?: CountSlot };
/** For the rare message that cannot take the slot (frozen). */
const frozenCounts = new WeakMap<Message, CountSlot>();

function memoized(message: Message, encoding: string): number | undefined {
  const slot = (message as WithSlot)[COUNT];
  if (slot?.encoding === encoding) return slot.tokens;
  // A message frozen with a count of another encoding keeps this encoding's count aside.
  const aside = frozenCounts.get(message);
  return aside?.encoding === encoding ? aside.tokens : undefined;
}

function remember(message: Message, slot: CountSlot): void {
  if (Object.isExtensible(message)) Object.defineProperty(message, COUNT, { value: slot, writable: true, configurable: true, enumerable: false });
  else frozenCounts.set(message, slot);
}

/**
 * Tokens of the reasoning blocks a message carries back to its provider: Anthropic thinking is
 * sent back unchanged in every later request (see providers/anthropicThinking.ts), so its text
 * counts; a redacted block's thinking is unreadable, so its encrypted data stands in for it at
 * about four characters a token. (Models before Claude Opus 4.5 strip earlier turns' thinking and
 * do not bill it: the provider's reported counts correct the estimate there.)
 */
export function reasoningTokens(message: Message, count: (text: string) => number): number {
  let total = 0;
  for (const block of message.reasoning ?? []) {
    if (block.format !== 'anthropic') continue;
    total += block.redactedData !== undefined ? Math.ceil(block.redactedData.length / 4) : count(block.text);
  }
  return total;
}

/**
 * Tokens a message adds to a request: content, tool-call names and raw JSON arguments, the tool
 * result's name, framing, images, and the reasoning sent back. Counted once per message and encoding.
 */
export function countMessage(message: Message, counter: Pick<TokenCounter, 'encoding' | 'count'>): number {
  const known = memoized(message, counter.encoding);
  if (known !== undefined) return known;
  let total = MESSAGE_OVERHEAD_TOKENS + counter.count(message.content);
  for (const call of message.toolCalls ?? []) total += TOOL_CALL_OVERHEAD_TOKENS + counter.count(call.name) + counter.count(call.arguments);
  if (message.role === 'tool') total += counter.count(message.toolName ?? '') + 2;
  total += (message.meta?.images ?? 0) * IMAGE_TOKEN_ESTIMATE;
  for (const image of message.images ?? []) total += image.tokens ?? IMAGE_TOKEN_ESTIMATE;
  if (message.reasoning) total += reasoningTokens(message, (text) => counter.count(text));
  remember(message, { encoding: counter.encoding, tokens: total });
  return total;
}

/** True when the message's count in `encoding` is known (stored with it or counted before): counting it needs no encoder. */
export function isCounted(message: Message, encoding: string): boolean {
  return memoized(message, encoding) !== undefined;
}

/** Texts longer than this are counted with countAsync, so a huge paste never blocks the thread. */
const ASYNC_COUNT_CHARS = 64 * 1024;

/**
 * countMessage, but a message with large text is counted in slices first (the memo then makes the
 * synchronous count free). Use it wherever a message enters the session.
 */
export async function countMessageAsync(message: Message, counter: TokenCounter): Promise<number> {
  const known = memoized(message, counter.encoding);
  if (known !== undefined) return known;
  const sliced = new Map<string, number>();
  const reasoning = (message.reasoning ?? []).map((block) => block.text);
  for (const text of [message.content, ...(message.toolCalls ?? []).map((call) => call.arguments), ...reasoning]) {
    if (text.length > ASYNC_COUNT_CHARS && !sliced.has(text)) sliced.set(text, await counter.countAsync(text));
  }
  if (sliced.size === 0) return countMessage(message, counter);
  return countMessage(message, { encoding: counter.encoding, count: (text) => sliced.get(text) ?? counter.count(text) });
}

/** The message as it is stored: with its count, so a resumed session need not count it again. */
export function withStoredCount(message: Message, counter: Pick<TokenCounter, 'encoding' | 'count'>): Message {
  return { ...message, tokens: countMessage(message, counter), tokenEncoding: counter.encoding };
}

/** Takes the counts stored with loaded messages into the memo (once, on load). */
export function adoptStoredCounts(messages: readonly Message[]): void {
  for (const m of messages) {
    if (m.tokens !== undefined && m.tokenEncoding && memoized(m, m.tokenEncoding) === undefined) remember(m, { encoding: m.tokenEncoding, tokens: m.tokens });
  }
}

/** Deterministic JSON (sorted keys) so the same tools always serialize, and count, the same. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Tokens of the tool definitions sent with a request. */
export function countToolDefinitions(definitions: readonly ToolDefinition[], counter: TokenCounter): number {
  let total = 0;
  for (const d of definitions) total += TOOL_CALL_OVERHEAD_TOKENS + counter.count(d.name) + counter.count(d.description) + counter.count(stableStringify(d.inputSchema));
  return total;
}
