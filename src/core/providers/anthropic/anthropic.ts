import type { ReasoningBlock, ToolCall } from '../../model/message';
import { freshCallId } from '../../history/uniqueCallIds';
import { AnthropicBodyBuilder } from './anthropicBodyBytes';
import { ConversationBodies } from '../http/conversationBodies';
import { errorFromPayload, type ErrorContext } from '../classifyError';
import { ProviderError } from '../errors';
import { parseEventJson, type FetchLike } from '../http/httpStream';
import type { RetryOptions } from '../http/retry';
import { retriedEventStream } from '../http/retriedEventStream';
import type { SseEvent } from '../http/sse';
import { replyLimits, type ReplyLimits, type ReplyMeter } from '../replyLimits';
import { droppedBeforeEnd, finalEvents, midStreamError, num, untilComplete } from '../streamResult';
import type { ChatProvider, ProviderEvent, ProviderRequest, ReportedUsage, StopReason } from '../types';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Default https://api.anthropic.com; requests go to `${baseUrl}/v1/messages`. */
  baseUrl?: string;
  fetch?: FetchLike;
  /** Time allowed until the response headers arrive (default 180 s). */
  timeoutMs?: number;
  /** Time a streaming answer may stall between chunks (default 120 s; the API sends pings meanwhile). */
  idleTimeoutMs?: number;
  retry?: RetryOptions;
  /** Cache breakpoint on the conversation as well as the system prompt (default true). */
  cacheConversation?: boolean;
  /** Extra headers, e.g. `anthropic-beta`. */
  headers?: Record<string, string>;
  /** What one reply may bring and how long it may take (default DEFAULT_REPLY_LIMITS). */
  limits?: Partial<ReplyLimits>;
}

export const ANTHROPIC_VERSION = '2023-06-01';

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
  pause_turn: 'pause_turn',
};

/** A thinking or redacted-thinking block being streamed. */
interface OpenThinking {
  text: string;
  signature: string;
  redactedData?: string;
}

interface OpenToolUse {
  ordinal: number;
  id: string;
  name: string;
  json: string;
  /** The `input` of content_block_start, used when no input_json_delta arrives. */
  initialInput: unknown;
}

interface UsageSoFar {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  thinking?: number;
}

function readUsage(raw: unknown, into: UsageSoFar): void {
  if (!raw || typeof raw !== 'object') return;
  const u = raw as Record<string, unknown>;
  into.input = num(u.input_tokens) ?? into.input;
  into.output = num(u.output_tokens) ?? into.output;
  into.cacheRead = num(u.cache_read_input_tokens) ?? into.cacheRead;
  into.cacheWrite = num(u.cache_creation_input_tokens) ?? into.cacheWrite;
  const details = u.output_tokens_details as Record<string, unknown> | undefined;
  into.thinking = num(details?.thinking_tokens) ?? into.thinking;
}

/** Turns Anthropic's message stream events into ProviderEvents. */
async function* decodeAnthropic(ctx: ErrorContext, events: AsyncIterable<SseEvent>, meter: ReplyMeter): AsyncGenerator<ProviderEvent> {
  const blocks = new Map<number, OpenToolUse>();
  const calls: ToolCall[] = [];
  const thinking = new Map<number, OpenThinking>();
  const usage: UsageSoFar = {};
  let stopReason: StopReason | undefined;
  let toolCount = 0;
  let outputStarted = false;
  let stopped = false;

  for await (const event of untilComplete(events, () => stopReason !== undefined)) {
    const data = parseEventJson(ctx, event);
    const type = typeof data.type === 'string' ? data.type : event.event;
    switch (type) {
      case 'message_start':
        readUsage((data.message as Record<string, unknown> | undefined)?.usage, usage);
        break;
      case 'content_block_start': {
        const block = (data.content_block ?? {}) as Record<string, unknown>;
        const index = num(data.index) ?? -1;
        if (block.type === 'tool_use') {
          const open: OpenToolUse = { ordinal: toolCount++, id: typeof block.id === 'string' && block.id ? block.id : freshCallId('toolu_tally_'), name: String(block.name ?? ''), json: '', initialInput: block.input };
          blocks.set(index, open);
          outputStarted = true;
          yield { type: 'tool_call_start', index: open.ordinal, id: open.id, name: open.name };
        } else if (block.type === 'thinking') {
          thinking.set(index, { text: typeof block.thinking === 'string' ? block.thinking : '', signature: typeof block.signature === 'string' ? block.signature : '' });
          outputStarted = true;
          if (typeof block.thinking === 'string' && block.thinking) yield { type: 'reasoning_delta', text: block.thinking };
        } else if (block.type === 'redacted_thinking') {
          thinking.set(index, { text: '', signature: '', redactedData: typeof block.data === 'string' ? block.data : '' });
          outputStarted = true;
        } else if (block.type === 'text' && typeof block.text === 'string' && block.text) {
          outputStarted = true;
          yield { type: 'text', text: block.text };
        }
        break;
      }
      case 'content_block_delta': {
        const delta = (data.delta ?? {}) as Record<string, unknown>;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          if (delta.text) {
            outputStarted = true;
            yield { type: 'text', text: delta.text };
          }
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          const open = blocks.get(num(data.index) ?? -1);
          if (open && delta.partial_json) {
            open.json += delta.partial_json;
            yield { type: 'tool_call_delta', index: open.ordinal, argumentsDelta: delta.partial_json };
          }
        } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
          const open = thinking.get(num(data.index) ?? -1);
          if (open && delta.thinking) {
            open.text += delta.thinking;
            yield { type: 'reasoning_delta', text: delta.thinking };
          }
        } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
          const open = thinking.get(num(data.index) ?? -1);
          if (open) {
            // Gathered without being passed on: counted here so an endless signature is stopped too.
            meter.addThinking(delta.signature.length);
            open.signature += delta.signature;
          }
        }
        // citations_delta and the deltas of server-side tools: nothing Tally shows or stores.
        break;
      }
      case 'content_block_stop': {
        const index = num(data.index) ?? -1;
        const closed = thinking.get(index);
        if (closed) {
          thinking.delete(index);
          const block: ReasoningBlock = closed.redactedData !== undefined ? { format: 'anthropic', text: '', redactedData: closed.redactedData } : { format: 'anthropic', text: closed.text, signature: closed.signature };
          yield { type: 'reasoning', block };
        }
        const open = blocks.get(index);
        if (open) {
          blocks.delete(index);
          const args = open.json || (open.initialInput && typeof open.initialInput === 'object' ? JSON.stringify(open.initialInput) : '{}');
          calls[open.ordinal] = { id: open.id, name: open.name, arguments: args };
        }
        break;
      }
      case 'message_delta': {
        const delta = (data.delta ?? {}) as Record<string, unknown>;
        if (typeof delta.stop_reason === 'string') stopReason = STOP_REASONS[delta.stop_reason] ?? 'other';
        readUsage(data.usage, usage);
        break;
      }
      case 'message_stop':
        stopped = true;
        break;
      case 'error': {
        const error = (data.error ?? {}) as Record<string, unknown>;
        throw midStreamError(errorFromPayload(ctx, { type: String(error.type ?? ''), message: typeof error.message === 'string' ? error.message : undefined }), outputStarted);
      }
      default:
        // ping, and event types added later (the API's versioning policy says to ignore them).
        break;
    }
    if (stopped) break;
  }
  // The message is complete once its stop reason arrived; only message_stop may be missing.
  if (!stopped && stopReason === undefined) throw droppedBeforeEnd(ctx);

  const reported: ReportedUsage = {
    inputTokens: usage.input === undefined ? undefined : usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
    outputTokens: usage.output,
    cacheReadTokens: usage.cacheRead,
    cacheWriteTokens: usage.cacheWrite,
    reasoningTokens: usage.thinking,
  };
  yield* finalEvents(calls.filter(Boolean), reported, stopReason ?? 'end_turn');
}

/** A ChatProvider for Anthropic's Messages API (streaming), over plain fetch. */
export function createAnthropicProvider(options: AnthropicProviderOptions): ChatProvider {
  const baseUrl = (options.baseUrl || 'https://api.anthropic.com').replace(/\/+$/, '');
  const ctx: ErrorContext = { provider: 'Anthropic', secrets: [options.apiKey] };
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  // Each body starts from the last one's turns: a session sends them again plus a few new ones.
  const bodies = new ConversationBodies(() => new AnthropicBodyBuilder());
  return {
    id: 'anthropic',
    async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
      if (!options.apiKey) throw new ProviderError('auth', 'Anthropic: no API key is set.');
      const builder = bodies.for(request.messages);
      await builder.prepare(request.messages);
      const body = builder.chunks(request, { cacheConversation: options.cacheConversation });
      const post = { fetch: doFetch, url: `${baseUrl}/v1/messages`, headers: { 'x-api-key': options.apiKey, 'anthropic-version': ANTHROPIC_VERSION, ...options.headers }, body, signal, errors: ctx };
      const timeouts = { timeoutMs: options.timeoutMs ?? 180_000, idleTimeoutMs: options.idleTimeoutMs ?? 120_000 };
      yield* retriedEventStream({ ...post, ...timeouts }, (events, meter) => decodeAnthropic(ctx, events, meter), options.retry, replyLimits(options.limits), true);
    },
  };
}
