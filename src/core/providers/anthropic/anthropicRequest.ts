import type { Message } from '../../model/message';
import { argumentsAsObject } from '../toolArguments';
import type { ProviderRequest } from '../types';
import { anthropicTool } from '../toolWireForms';
import { DYNAMIC_NOTE_ID } from '../../prompt/promptSections';
import { thinkingFields } from './anthropicThinking';
import { anthropicImageBlock, type AnthropicImageBlock } from '../../images/imageWire';

/** Anthropic accepts at most this many blocks with `cache_control` in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

type CacheControl = { type: 'ephemeral' };
export type Block =
  | { type: 'text'; text: string; cache_control?: CacheControl }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl }
  | { type: 'tool_result'; tool_use_id: string; content?: string; is_error?: boolean; cache_control?: CacheControl }
  | { type: 'thinking'; thinking: string; signature: string; cache_control?: undefined }
  | { type: 'redacted_thinking'; data: string; cache_control?: undefined }
  | (Extract<AnthropicImageBlock, { type: 'image' }> & { cache_control?: CacheControl });

/** Thinking blocks take no `cache_control`: a breakpoint goes on the block before or after them. */
export function isThinkingBlock(block: Block): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

/** The last block of a message that can carry a cache breakpoint. */
export function breakpointBlock<T>(blocks: readonly T[], thinking: (block: T) => boolean): T | undefined {
  for (let i = blocks.length - 1; i >= 0; i--) if (!thinking(blocks[i])) return blocks[i];
  return undefined;
}

interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface AnthropicRequestOptions {
  /**
   * Put a cache breakpoint on the conversation (the last message before any trailing notes), so
   * each turn reads the previous turn's prefix from the cache. Default true.
   */
  cacheConversation?: boolean;
}

/** Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; ids from other sources are made to fit, consistently. */
function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
}

/** A message's blocks and the role of the turn they join; none for an empty message. */
export function blocksOf(message: Message): { role: 'user' | 'assistant'; blocks: Block[] } {
  if (message.role === 'tool') {
    const block: Block = { type: 'tool_result', tool_use_id: toolId(message.toolCallId ?? '') };
    if (message.content) block.content = message.content;
    if (message.meta?.isError || message.kind === 'aborted') block.is_error = true;
    return { role: 'user', blocks: [block] };
  }
  if (message.role === 'assistant') {
    // Thinking first, exactly as the API produced it: the API checks the signatures.
    const blocks: Block[] = [];
    for (const r of message.reasoning ?? []) {
      if (r.format !== 'anthropic') continue;
      if (r.redactedData !== undefined) blocks.push({ type: 'redacted_thinking', data: r.redactedData });
      else if (r.signature !== undefined) blocks.push({ type: 'thinking', thinking: r.text, signature: r.signature });
    }
    if (message.content.trim()) blocks.push({ type: 'text', text: message.content });
    for (const call of message.toolCalls ?? []) {
      blocks.push({ type: 'tool_use', id: toolId(call.id), name: call.name, input: argumentsAsObject(call.arguments) });
    }
    return { role: 'assistant', blocks };
  }
  // user and system-role messages (summaries, notes, instructions) travel as user text, then the images they carry.
  const blocks: Block[] = message.content.trim() ? [{ type: 'text', text: message.content }] : [];
  for (const image of message.images ?? []) blocks.push(anthropicImageBlock(image));
  return { role: 'user', blocks };
}

/** Index of the last message before trailing notes. */
function conversationAnchor(messages: readonly Message[]): number {
  let i = messages.length - 1;
  while (i >= 0 && messages[i].kind === 'note') i--;
  return i;
}

/**
 * The messages that carry conversation breakpoints, latest first. With a dynamic part (a note after
 * the conversation), one breakpoint ends the stable prefix just before it, so a change in the
 * dynamic part never moves anything up to there, and the next request (of this turn or the next)
 * finds everything before it cached; a reply being continued after the note gets one too.
 */
export function conversationAnchors(messages: readonly Message[]): number[] {
  return conversationAnchorsAround(messages, firstNoteFrom(messages, 0));
}

/** Index of the first dynamic note at or after `from` (-1: none). */
export function firstNoteFrom(messages: readonly Message[], from: number): number {
  for (let i = from; i < messages.length; i++) if (messages[i].id === DYNAMIC_NOTE_ID) return i;
  return -1;
}

/** conversationAnchors, given the index of the first dynamic note (-1: none). */
export function conversationAnchorsAround(messages: readonly Message[], dynamic: number): number[] {
  const end = conversationAnchor(messages);
  if (dynamic < 0) return [end];
  return end > dynamic + 1 ? [end, dynamic - 1] : [dynamic - 1];
}

/**
 * The Messages API body for a request. Consecutive messages of one role merge into one turn (tool
 * results of one assistant turn become one user turn, results first as the API requires); empty
 * messages are left out; system blocks flagged `cacheBreakpoint` get `cache_control`, at most four
 * breakpoints in all, the latest ones kept when there are more. What is sent is built as bytes by
 * anthropicBodyBytes.ts and equals JSON.stringify of this.
 */
export function toAnthropicBody(request: ProviderRequest, options: AnthropicRequestOptions = {}): Record<string, unknown> {
  const turns: Turn[] = [];
  const lastBlockOf: Array<Block | undefined> = [];
  request.messages.forEach((message, index) => {
    const { role, blocks } = blocksOf(message);
    lastBlockOf[index] = breakpointBlock(blocks, isThinkingBlock);
    if (blocks.length === 0) return;
    const previous = turns[turns.length - 1];
    if (previous && previous.role === role) previous.content.push(...blocks);
    else turns.push({ role, content: [...blocks] });
  });
  for (const turn of turns) {
    if (turn.role !== 'user') continue;
    const results = turn.content.filter((b) => b.type === 'tool_result');
    if (results.length && results.length < turn.content.length) turn.content = [...results, ...turn.content.filter((b) => b.type !== 'tool_result')];
  }
  const last = turns[turns.length - 1];
  if (last?.role === 'assistant') {
    // The API rejects a final assistant turn ending in whitespace.
    const tail = last.content[last.content.length - 1];
    if (tail?.type === 'text') tail.text = tail.text.trimEnd();
  }

  let slots = MAX_CACHE_BREAKPOINTS;
  if (options.cacheConversation ?? true) {
    for (const anchor of conversationAnchors(request.messages)) {
      for (let i = anchor; i >= 0; i--) {
        const block = lastBlockOf[i];
        if (block && !isThinkingBlock(block)) {
          if (!block.cache_control) slots--;
          (block as { cache_control?: CacheControl }).cache_control = { type: 'ephemeral' };
          break;
        }
      }
    }
  }

  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    stream: true,
  };
  const system = systemBlocks(request, slots);
  if (system.length) body.system = system;
  body.messages = turns;
  return Object.assign(body, anthropicFieldsAfterMessages(request));
}

/** The system blocks; the latest ones flagged `cacheBreakpoint` get `cache_control` while `slots` last. */
export function systemBlocks(request: ProviderRequest, slots: number): Array<{ type: 'text'; text: string; cache_control?: CacheControl }> {
  const system = request.system.filter((b) => b.text.length > 0).map((b) => ({ type: 'text' as const, text: b.text, cache_control: undefined as CacheControl | undefined, flagged: !!b.cacheBreakpoint }));
  for (let i = system.length - 1; i >= 0 && slots > 0; i--) {
    if (system[i].flagged) {
      system[i].cache_control = { type: 'ephemeral' };
      slots--;
    }
  }
  return system.map(({ text, cache_control }) => (cache_control ? { type: 'text', text, cache_control } : { type: 'text', text }));
}

/** The fields of the body after `messages`, in the order they are sent. */
export function anthropicFieldsAfterMessages(request: ProviderRequest): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (request.tools.length) {
    fields.tools = request.tools.map(anthropicTool);
  }
  const thinking = thinkingFields(request.model, request.reasoning, request.maxOutputTokens);
  // The API rejects temperature together with thinking.
  if (request.temperature !== undefined && !thinking.thinking) fields.temperature = request.temperature;
  return Object.assign(fields, thinking);
}
