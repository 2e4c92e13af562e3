import { errorFromPayload, type ErrorContext } from '../classifyError';
import { parseEventJson, type FetchLike } from '../http/httpStream';
import { OpenAIBodyBuilder } from './openaiBodyBytes';
import { ConversationBodies } from '../http/conversationBodies';
import type { MaxTokensField } from './openaiRequest';
import { ChatReasoning } from './openaiChatReasoning';
import { ToolCallAssembler } from './openaiToolCalls';
import type { RetryOptions } from '../http/retry';
import { retriedEventStream } from '../http/retriedEventStream';
import type { SseEvent } from '../http/sse';
import { replyLimits, type ReplyLimits } from '../replyLimits';
import { droppedBeforeEnd, finalEvents, midStreamError, num, untilComplete } from '../streamResult';
import type { ChatProvider, ProviderEvent, ProviderRequest, ReportedUsage, StopReason } from '../types';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAIProviderOptions {
  /** Optional: local servers (Ollama, LM Studio, vLLM) usually need none. */
  apiKey?: string;
  /** Default https://api.openai.com/v1; requests go to `${baseUrl}/chat/completions`. Ollama: http://127.0.0.1:11434/v1. */
  baseUrl?: string;
  /** 'openai' (default for OpenAI's own URL) or 'openai-compatible'. */
  id?: string;
  fetch?: FetchLike;
  /** Time allowed until the response headers arrive (default 180 s; local servers may load the model first). */
  timeoutMs?: number;
  /**
   * Time a streaming answer may stall between chunks (default 300 s: reasoning models send nothing
   * while they think, and OpenAI sends no keep-alives).
   */
  idleTimeoutMs?: number;
  retry?: RetryOptions;
  /** Default: `max_completion_tokens` for api.openai.com, `max_tokens` for other servers. */
  maxTokensField?: MaxTokensField;
  /** Send `stream_options.include_usage` (default true); turn off for servers that reject it. */
  includeUsage?: boolean;
  headers?: Record<string, string>;
  /** What one reply may bring and how long it may take (default DEFAULT_REPLY_LIMITS). */
  limits?: Partial<ReplyLimits>;
}

const FINISH_REASONS: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
};

/** Turns chat.completion.chunk events into ProviderEvents. */
async function* decodeOpenAI(ctx: ErrorContext, events: AsyncIterable<SseEvent>): AsyncGenerator<ProviderEvent> {
  const assembler = new ToolCallAssembler();
  let usage: ReportedUsage = {};
  let finish: StopReason | undefined;
  let doneMarker = false;
  let outputStarted = false;
  const reasoning = new ChatReasoning();

  for await (const event of untilComplete(events, () => finish !== undefined)) {
    if (event.data.trim() === '[DONE]') {
      doneMarker = true;
      break;
    }
    const chunk = parseEventJson(ctx, event);
    if (chunk.error && typeof chunk.error === 'object') {
      const e = chunk.error as Record<string, unknown>;
      const info = { message: typeof e.message === 'string' ? e.message : undefined, type: typeof e.type === 'string' ? e.type : undefined, code: typeof e.code === 'string' ? e.code : undefined };
      throw midStreamError(errorFromPayload(ctx, info), outputStarted);
    }
    // With include_usage every chunk carries `usage: null` except the last one (choices: []).
    if (chunk.usage && typeof chunk.usage === 'object') {
      const u = chunk.usage as Record<string, unknown>;
      const details = (u.prompt_tokens_details ?? {}) as Record<string, unknown>;
      const output = (u.completion_tokens_details ?? {}) as Record<string, unknown>;
      usage = { inputTokens: num(u.prompt_tokens), outputTokens: num(u.completion_tokens), cacheReadTokens: num(details?.cached_tokens), reasoningTokens: num(output?.reasoning_tokens) };
    }
    const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Record<string, unknown> | undefined) : undefined;
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    const thought = reasoning.deltaOf(delta);
    if (thought) {
      outputStarted = true;
      yield { type: 'reasoning_delta', text: thought };
    }
    if (typeof delta.content === 'string' && delta.content) {
      outputStarted = true;
      yield* reasoning.end();
      yield { type: 'text', text: delta.content };
    }
    for (const toolEvent of assembler.apply(delta.tool_calls)) {
      outputStarted = true;
      yield* reasoning.end();
      yield toolEvent;
    }
    if (typeof choice.finish_reason === 'string') finish = FINISH_REASONS[choice.finish_reason] ?? 'other';
  }
  // Complete once [DONE] or a finish_reason arrived (a drop after it only loses the usage chunk).
  if (!doneMarker && finish === undefined) throw droppedBeforeEnd(ctx);
  yield* reasoning.end();
  yield* finalEvents(assembler.complete(), usage, finish ?? (assembler.count ? 'tool_use' : 'end_turn'));
}

/** A ChatProvider for OpenAI Chat Completions and OpenAI-compatible servers, over plain fetch. */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): ChatProvider {
  const baseUrl = (options.baseUrl || OPENAI_BASE_URL).replace(/\/+$/, '');
  const official = /^https:\/\/api\.openai\.com(\/|$)/.test(baseUrl);
  const id = options.id ?? (official ? 'openai' : 'openai-compatible');
  const ctx: ErrorContext = { provider: official ? 'OpenAI' : `OpenAI-compatible server (${safeOrigin(baseUrl)})`, secrets: [options.apiKey] };
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const maxTokensField = options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens');
  const bodies = new ConversationBodies(() => new OpenAIBodyBuilder());
  return {
    id,
    async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
      const builder = bodies.for(request.messages);
      await builder.prepare(request.messages);
      const body = builder.chunks(request, { maxTokensField, includeUsage: options.includeUsage });
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      const post = { fetch: doFetch, url: `${baseUrl}/chat/completions`, headers: headers, body, signal, errors: ctx };
      const timeouts = { timeoutMs: options.timeoutMs ?? 180_000, idleTimeoutMs: options.idleTimeoutMs ?? 300_000 };
      yield* retriedEventStream({ ...post, ...timeouts }, (events) => decodeOpenAI(ctx, events), options.retry, replyLimits(options.limits));
    },
  };
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'custom URL';
  }
}
