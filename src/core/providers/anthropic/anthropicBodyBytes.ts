import { anthropicFieldsAfterMessages, blocksOf, breakpointBlock, isThinkingBlock, conversationAnchorsAround, firstNoteFrom, MAX_CACHE_BREAKPOINTS, systemBlocks, type AnthropicRequestOptions } from './anthropicRequest';
import { ByteChunks, MessageWireCache, SentMessages, utf8 } from '../http/bodyBytes';
import type { Message } from '../../model/message';
import type { ProviderRequest } from '../types';

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
 * The bytes of JSON.stringify(toAnthropicBody(request, options)), built alone (no earlier body to
 * start from).
 */
export function anthropicBodyBytes(request: ProviderRequest, options: AnthropicRequestOptions = {}): Uint8Array {
  return new AnthropicBodyBuilder().chunks(request, options).join();
}

/** A turn of the last body: the message it starts at, and its bytes without any `cache_control` (undefined for the last turn). */
interface SentTurn {
  start: number;
  bytes?: Uint8Array;
}

/**
 * Builds JSON.stringify(toAnthropicBody(request, options)) as chunks. Each message's blocks come
 * from cache; the turns they merge into, their order, the trimmed end of a final assistant turn and
 * the cache breakpoints are worked out per request exactly as toAnthropicBody does. A session sends
 * the messages of its last request again plus a few new ones: the turns of the last body that end
 * before anything changed and before this request's breakpoints are sent as the bytes kept from it
 * (without `cache_control`), so a request reads and builds only the turns at its end.
 */
export class AnthropicBodyBuilder {
  private last?: { messages: SentMessages; turns: SentTurn[]; firstNote: number };
  /**
   * The first `count` turns of the last body's, each but the first after a comma, as one block of
   * bytes filled up to `ends[count - 1]`: a body sends the turns it keeps as one chunk. Bytes of it
   * that were sent are never written again (a body may still be on its way): a block cut back is
   * copied into a new one, and one extended is written after its end.
   */
  private block = { bytes: new Uint8Array(0), ends: [] as number[], count: 0 };

  /**
   * Readies the messages' blocks before `chunks` when this conversation has no body yet, so building
   * its first body (every message) does not hold the event loop in one stretch.
   */
  async prepare(messages: readonly Message[]): Promise<void> {
    if (!this.last) await messageBlocks.warm(messages);
  }

  chunks(request: ProviderRequest, options: AnthropicRequestOptions = {}): ByteChunks {
    const { messages } = request;
    const last = this.last;
    // Until this body is done, nothing is reused from a record being changed.
    this.last = undefined;
    const reused = last ? last.messages.unchangedPrefix(messages) : 0;
    // The first dynamic note: known when it stands in the unchanged messages; else none is there.
    const firstNote = last && last.firstNote >= 0 && last.firstNote < reused ? last.firstNote : firstNoteFrom(messages, last ? reused : 0);

    // The messages whose last block gets a breakpoint, and so the first message a kept turn must end before.
    const breakpoints: number[] = [];
    if (options.cacheConversation ?? true) {
      for (const anchor of conversationAnchorsAround(messages, firstNote)) {
        for (let i = anchor; i >= 0; i--) {
          if (breakpointBlock(messageBlocks.get(messages[i]).blocks, (b) => b.thinking)) {
            breakpoints.push(i);
            break;
          }
        }
      }
    }
    const limit = Math.min(reused - 1, ...breakpoints);
    const kept: SentTurn[] = [];
    if (last) {
      for (let k = 0; k + 1 < last.turns.length && last.turns[k].bytes && last.turns[k + 1].start <= limit; k++) kept.push(last.turns[k]);
    }
    const from = kept.length ? last!.turns[kept.length].start : 0;

    const turns: Array<{ role: 'user' | 'assistant'; start: number; blocks: PlacedBlock[] }> = [];
    const lastBlockOf: Array<PlacedBlock | undefined> = [];
    for (let index = from; index < messages.length; index++) {
      const { role, blocks } = messageBlocks.get(messages[index]);
      if (blocks.length === 0) continue;
      const placed = blocks.map((block): PlacedBlock => ({ block, cache: false }));
      lastBlockOf[index] = breakpointBlock(placed, (p) => p.block.thinking);
      const previous = turns[turns.length - 1];
      if (previous && previous.role === role) previous.blocks.push(...placed);
      else turns.push({ role, start: index, blocks: placed });
    }
    for (const turn of turns) {
      if (turn.role !== 'user') continue;
      const results = turn.blocks.filter((b) => b.block.toolResult);
      if (results.length && results.length < turn.blocks.length) turn.blocks = [...results, ...turn.blocks.filter((b) => !b.block.toolResult)];
    }
    const final = turns[turns.length - 1];
    if (final?.role === 'assistant') {
      const tail = final.blocks[final.blocks.length - 1];
      if (tail?.block.text !== undefined) {
        const text = tail.block.text.trimEnd();
        tail.block = { bytes: utf8(JSON.stringify({ type: 'text', text })), toolResult: false, text, thinking: false };
      }
    }

    let slots = MAX_CACHE_BREAKPOINTS;
    for (const i of breakpoints) {
      const placed = lastBlockOf[i];
      if (placed && !placed.cache) {
        slots--;
        placed.cache = true;
      }
    }

    const body = new ByteChunks();
    const system = systemBlocks(request, slots);
    const head = JSON.stringify({ model: request.model, max_tokens: request.maxOutputTokens, stream: true, ...(system.length ? { system } : {}) });
    body.text(`${head.slice(0, -1)},"messages":[`);
    const sent: SentTurn[] = [...kept];
    const keptBytes = this.keptBlock(kept);
    if (keptBytes.length) body.push(keptBytes);
    const fresh: Uint8Array[] = [];
    turns.forEach((turn, t) => {
      if (sent.length > 0) fresh.push(COMMA);
      const parts = turnBytes(turn.role, turn.blocks, true);
      for (const part of parts) fresh.push(part);
      // The last turn may be trimmed or merge with what comes next: it is built again.
      const isFinal = t === turns.length - 1;
      sent.push({ start: turn.start, bytes: isFinal ? undefined : joined(turn.blocks.some((b) => b.cache) ? turnBytes(turn.role, turn.blocks, false) : parts) });
    });
    body.push(joined(fresh));
    const after = JSON.stringify(anthropicFieldsAfterMessages(request));
    body.text(after === '{}' ? ']}' : `],${after.slice(1)}`);

    const sentMessages = last?.messages ?? new SentMessages();
    sentMessages.truncate(reused);
    for (let i = reused; i < messages.length; i++) sentMessages.push(messages[i]);
    sentMessages.follow(messages);
    this.last = { messages: sentMessages, turns: sent, firstNote };
    return body;
  }

  /** The block holding exactly the turns `kept` (a prefix of the last body's turns), cut back or extended. */
  private keptBlock(kept: readonly SentTurn[]): Uint8Array {
    const block = this.block;
    const count = kept.length;
    if (block.count > count) {
      const end = count > 0 ? block.ends[count - 1] : 0;
      const bytes = new Uint8Array(end > 0 ? capacityFor(end) : 0);
      bytes.set(block.bytes.subarray(0, end));
      block.bytes = bytes;
    } else if (block.count < count) {
      const from = block.count > 0 ? block.ends[block.count - 1] : 0;
      let end = from;
      for (let t = block.count; t < count; t++) {
        end += (t > 0 ? 1 : 0) + kept[t].bytes!.length;
        block.ends[t] = end;
      }
      if (end > block.bytes.length) {
        const bytes = new Uint8Array(capacityFor(end));
        bytes.set(block.bytes.subarray(0, from));
        block.bytes = bytes;
      }
      let at = from;
      for (let t = block.count; t < count; t++) {
        if (t > 0) block.bytes[at++] = COMMA[0];
        block.bytes.set(kept[t].bytes!, at);
        at += kept[t].bytes!.length;
      }
    }
    block.count = count;
    block.ends.length = count;
    return block.bytes.subarray(0, count > 0 ? block.ends[count - 1] : 0);
  }
}

/** Room for `needed` bytes and the growth of many more requests, so the block is rarely moved. */
function capacityFor(needed: number): number {
  return needed + Math.max(64 * 1024, needed >> 2);
}

/** A turn's bytes in order; with `withCache` false, no block carries `cache_control`. */
function turnBytes(role: 'user' | 'assistant', blocks: readonly PlacedBlock[], withCache: boolean): Uint8Array[] {
  const parts: Uint8Array[] = [TURN_START[role]];
  blocks.forEach(({ block, cache }, b) => {
    if (b > 0) parts.push(COMMA);
    if (!cache || !withCache) parts.push(block.bytes);
    else {
      parts.push(block.bytes.subarray(0, block.bytes.length - 1));
      parts.push(CACHE_CONTROL_END);
    }
  });
  parts.push(TURN_END);
  return parts;
}

function joined(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
