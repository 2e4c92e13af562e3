import { anthropicFieldsAfterMessages, blocksOf, breakpointBlock, isThinkingBlock, conversationAnchors, MAX_CACHE_BREAKPOINTS, systemBlocks, type AnthropicRequestOptions } from './anthropicRequest';
import { ByteChunks, MessageWireCache, utf8 } from './bodyBytes';
import type { ProviderRequest } from './types';

/** One block's JSON as UTF-8, without `cache_control` (a request adds it where its breakpoints fall). */
interface BlockBytes {
  bytes: Uint8Array;
  toolResult: boolean;
  /** A text block's text (the last block of a final assistant turn is sent trimmed). */
  text?: string;
  /** A thinking or redacted-thinking block: sent unchanged, never given a cache breakpoint. */
  thinking: boolean;
}

/** A block as placed in one request: breakpoints move from request to request, the cached bytes never change. */
interface PlacedBlock {
  block: BlockBytes;
  cache: boolean;
}

const messageBlocks = new MessageWireCache((message) => {
  const { role, blocks } = blocksOf(message);
  return { role, blocks: blocks.map((b): BlockBytes => ({ bytes: utf8(JSON.stringify(b)), toolResult: b.type === 'tool_result', text: b.type === 'text' ? b.text : undefined, thinking: isThinkingBlock(b) })) };
});

const COMMA = utf8(',');
const TURN_START = { user: utf8('{"role":"user","content":['), assistant: utf8('{"role":"assistant","content":[') };
const TURN_END = utf8(']}');
/** `cache_control` is the last key of a block that has one, so it goes where the block's closing brace was. */
const CACHE_CONTROL_END = utf8(',"cache_control":{"type":"ephemeral"}}');

/**
 * The bytes of JSON.stringify(toAnthropicBody(request, options)): each message's blocks come from
 * cache; the turns they merge into, their order, the trimmed end of a final assistant turn and the
 * cache breakpoints are worked out per request exactly as toAnthropicBody does.
 */
export function anthropicBodyBytes(request: ProviderRequest, options: AnthropicRequestOptions = {}): Uint8Array {
  const turns: Array<{ role: 'user' | 'assistant'; blocks: PlacedBlock[] }> = [];
  const lastBlockOf: Array<PlacedBlock | undefined> = [];
  request.messages.forEach((message, index) => {
    const { role, blocks } = messageBlocks.get(message);
    if (blocks.length === 0) return;
    const placed = blocks.map((block): PlacedBlock => ({ block, cache: false }));
    lastBlockOf[index] = breakpointBlock(placed, (p) => p.block.thinking);
    const previous = turns[turns.length - 1];
    if (previous && previous.role === role) previous.blocks.push(...placed);
    else turns.push({ role, blocks: placed });
  });
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    const results = turn.blocks.filter((b) => b.block.toolResult);
    if (results.length && results.length < turn.blocks.length) turn.blocks = [...results, ...turn.blocks.filter((b) => !b.block.toolResult)];
  }
  const last = turns[turns.length - 1];
  if (last?.role === 'assistant') {
    const tail = last.blocks[last.blocks.length - 1];
    if (tail?.block.text !== undefined) {
      const text = tail.block.text.trimEnd();
      tail.block = { bytes: utf8(JSON.stringify({ type: 'text', text })), toolResult: false, text, thinking: false };
    }
  }

  let slots = MAX_CACHE_BREAKPOINTS;
  if (options.cacheConversation ?? true) {
    for (const anchor of conversationAnchors(request.messages)) {
      for (let i = anchor; i >= 0; i--) {
        const placed = lastBlockOf[i];
        if (placed) {
          if (!placed.cache) slots--;
          placed.cache = true;
          break;
        }
      }
    }
  }

  const body = new ByteChunks();
  const system = systemBlocks(request, slots);
  const head = JSON.stringify({ model: request.model, max_tokens: request.maxOutputTokens, stream: true, ...(system.length ? { system } : {}) });
  body.text(`${head.slice(0, -1)},"messages":[`);
  turns.forEach((turn, t) => {
    if (t > 0) body.push(COMMA);
    body.push(TURN_START[turn.role]);
    turn.blocks.forEach(({ block, cache }, b) => {
      if (b > 0) body.push(COMMA);
      if (!cache) body.push(block.bytes);
      else {
        body.push(block.bytes.subarray(0, block.bytes.length - 1));
        body.push(CACHE_CONTROL_END);
      }
    });
    body.push(TURN_END);
  });
  const after = JSON.stringify(anthropicFieldsAfterMessages(request));
  body.text(after === '{}' ? ']}' : `],${after.slice(1)}`);
  return body.join();
}
