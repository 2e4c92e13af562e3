import type { ToolCall } from '../../model/message';
import { errorFromPayload, type ErrorContext, type ErrorInfo } from '../classifyError';
import { ProviderError } from '../errors';
import { parseEventJson, type FetchLike } from '../http/httpStream';
import { responsesBodyChunks } from './openaiResponsesBody';
import type { RetryOptions } from '../http/retry';
import { retriedEventStream } from '../http/retriedEventStream';
import type { SseEvent } from '../http/sse';
import { replyLimits, type ReplyLimits } from '../replyLimits';
import { droppedBeforeEnd, finalEvents, midStreamError, num, untilComplete } from '../streamResult';
import type { ChatProvider, ProviderEvent, ProviderRequest, ReportedUsage, StopReason } from '../types';

export interface OpenAIResponsesOptions {
  apiKey?: string;
  /** Requests go to `${baseUrl}/responses`: OpenAI's own API, or a proxy or gateway that speaks it. */
  baseUrl: string;
  /** Label in messages: "OpenAI", or the gateway's host. */
  label: string;
  fetch?: FetchLike;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  retry?: RetryOptions;
  headers?: Record<string, string>;
  /** What one reply may bring and how long it may take (default DEFAULT_REPLY_LIMITS). */
  limits?: Partial<ReplyLimits>;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** An `error` event's fields: at its top level (`{type:"error", code, message}`) or under `error`. */
function errorInfoOf(payload: Record<string, unknown>): ErrorInfo {
  const inner = record(payload.error);
  const source = Object.keys(inner).length ? inner : payload;
  const code = text(source.code);
  const type = text(source.type) === 'error' ? undefined : text(source.type);
  return { message: text(source.message), type: type ?? code, code: code ?? type };
}

function usageOf(response: Record<string, unknown>): ReportedUsage {
  const u = record(response.usage);
  return {
    inputTokens: num(u.input_tokens),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: num(record(u.input_tokens_details).cached_tokens),
    reasoningTokens: num(record(u.output_tokens_details).reasoning_tokens),
  };
}

function summaryText(item: Record<string, unknown>): string {
  const parts = Array.isArray(item.summary) ? item.summary : [];
  return parts.map((part) => text(record(part).text) ?? '').filter(Boolean).join('\n\n');
}

interface OpenCall {
  call: ToolCall;
  ordinal: number;
}

/** An error the stream reported; an exhausted quota does not clear by sending again. */
function streamError(ctx: ErrorContext, info: ErrorInfo, outputStarted: boolean): ProviderError {
  const error = errorFromPayload(ctx, info);
  if (info.code !== 'insufficient_quota' && info.type !== 'insufficient_quota') return midStreamError(error, outputStarted);
  return new ProviderError(error.kind, error.message, { code: error.code, retryable: false });
}

/** Turns a Responses event stream into ProviderEvents. */
async function* decodeResponses(ctx: ErrorContext, events: AsyncIterable<SseEvent>): AsyncGenerator<ProviderEvent> {
  const calls: OpenCall[] = [];
  const callsByItem = new Map<string, OpenCall>();
  let usage: ReportedUsage = {};
  let finish: StopReason | undefined;
  let refused = false;
  let outputStarted = false;
  let lastSummary: string | undefined;
  let lastTextOutput: unknown;

  const callFor = (payload: Record<string, unknown>): OpenCall | undefined => {
    const key = text(payload.item_id) ?? `#${String(payload.output_index)}`;
    return callsByItem.get(key) ?? callsByItem.get(`#${String(payload.output_index)}`);
  };

  for await (const event of untilComplete(events, () => finish !== undefined)) {
    if (event.data.trim() === '[DONE]') break;
    const payload = parseEventJson(ctx, event);
    const type = text(payload.type) ?? event.event ?? '';
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const delta = text(payload.delta);
        if (type === 'response.refusal.delta') refused = true;
        if (delta) {
          // A second message of the same response (after a commentary message, say) starts a new paragraph.
          if (lastTextOutput !== undefined && lastTextOutput !== payload.output_index) yield { type: 'text', text: '\n\n' };
          lastTextOutput = payload.output_index;
          outputStarted = true;
          yield { type: 'text', text: delta };
        }
        break;
      }
      case 'response.reasoning_summary_text.delta': {
        const delta = text(payload.delta);
        if (!delta) break;
        // A new summary part of the same reasoning starts a new paragraph.
        const part = `${String(payload.item_id)}/${String(payload.summary_index)}`;
        if (lastSummary !== undefined && lastSummary !== part && lastSummary.split('/')[0] === part.split('/')[0]) yield { type: 'reasoning_delta', text: '\n\n' };
        lastSummary = part;
        outputStarted = true;
        yield { type: 'reasoning_delta', text: delta };
        break;
      }
      case 'response.output_item.added': {
        const item = record(payload.item);
        if (item.type !== 'function_call') break;
        const open: OpenCall = { call: { id: text(item.call_id) ?? text(item.id) ?? '', name: text(item.name) ?? '', arguments: '' }, ordinal: calls.length };
        calls.push(open);
        if (text(item.id)) callsByItem.set(text(item.id)!, open);
        callsByItem.set(`#${String(payload.output_index)}`, open);
        outputStarted = true;
        yield { type: 'tool_call_start', index: open.ordinal, id: open.call.id, name: open.call.name };
        break;
      }
      case 'response.function_call_arguments.delta': {
        const open = callFor(payload);
        const delta = text(payload.delta);
        if (!open || !delta) break;
        open.call.arguments += delta;
        yield { type: 'tool_call_delta', index: open.ordinal, argumentsDelta: delta };
        break;
      }
      case 'response.output_item.done': {
        const item = record(payload.item);
        if (item.type === 'function_call') {
          const open = callFor({ item_id: item.id, output_index: payload.output_index });
          // The finished item's arguments are the whole text: they win over the deltas.
          if (open && typeof item.arguments === 'string') open.call.arguments = item.arguments;
          if (open && text(item.call_id)) open.call.id = text(item.call_id)!;
        } else if (item.type === 'reasoning') {
          yield {
            type: 'reasoning',
            block: { format: 'openai-responses', text: summaryText(item), itemId: text(item.id), encryptedContent: text(item.encrypted_content) },
          };
        } else if (item.type === 'message' && Array.isArray(item.content) && item.content.some((part) => record(part).type === 'refusal')) {
          refused = true;
        }
        break;
      }
      case 'response.completed':
        usage = usageOf(record(payload.response));
        finish = refused ? 'refusal' : calls.length ? 'tool_use' : 'end_turn';
        break;
      case 'response.incomplete': {
        const response = record(payload.response);
        usage = usageOf(response);
        const reason = text(record(response.incomplete_details).reason);
        finish = reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : 'other';
        break;
      }
      case 'response.failed': {
        const error = record(record(payload.response).error);
        const info: ErrorInfo = { message: text(error.message) ?? 'the response failed', type: text(error.code), code: text(error.code) };
        throw streamError(ctx, info, outputStarted);
      }
      case 'error':
        throw streamError(ctx, errorInfoOf(payload), outputStarted);
      default:
        break;
    }
  }
  if (finish === undefined) throw droppedBeforeEnd(ctx);
  // A call cut off by the output limit is not complete: only a finished response's calls are.
  const complete = finish === 'max_tokens' ? [] : calls.map((open) => ({ ...open.call, arguments: open.call.arguments || '{}' }));
  yield* finalEvents(complete, usage, finish);
}

/** A ChatProvider for the OpenAI Responses API, at OpenAI or at a proxy or gateway that speaks it. */
export function createOpenAIResponsesProvider(options: OpenAIResponsesOptions): ChatProvider {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const ctx: ErrorContext = { provider: options.label, secrets: [options.apiKey] };
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  return {
    id: 'openai',
    wireFormat: 'openai-responses',
    async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
      const body = responsesBodyChunks(request);
      const headers: Record<string, string> = { ...options.headers };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      const post = { fetch: doFetch, url: `${baseUrl}/responses`, headers, body, signal, errors: ctx };
      const timeouts = { timeoutMs: options.timeoutMs ?? 180_000, idleTimeoutMs: options.idleTimeoutMs ?? 300_000 };
      yield* retriedEventStream({ ...post, ...timeouts }, (events) => decodeResponses(ctx, events), options.retry, replyLimits(options.limits));
    },
  };
}
