import { describeError, errorFromPayload, errorFromResponse, readErrorBody, type ErrorContext } from '../classifyError';
import { ByteChunks } from './bodyBytes';
import { BodyTooLargeError, readTextUpTo } from './boundedBody';
import { ProviderError, redactAndClip, redactSecrets } from '../errors';
import { cancelledError } from './retry';
import { fetchSameOrigin, RedirectError } from './sameOriginFetch';
import { replyLimitError } from '../replyLimits';
import { SseEventTooLargeError, SseParser, SseSyntaxError, type SseEvent } from './sse';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** An error answer (or a JSON answer where a stream was expected) is read up to this size: its message is all Tally shows. */
const ERROR_BODY_MAX_BYTES = 1024 * 1024;

export interface EventStreamRequest {
  fetch: FetchLike;
  url: string;
  headers: Record<string, string>;
  /** JSON bytes as they are to be sent (whole or in chunks), or a value to send as JSON. */
  body: unknown;
  /** Time allowed until the response headers arrive. */
  timeoutMs: number;
  /** Time allowed between two chunks of the body once it streams. */
  idleTimeoutMs: number;
  /** Time the whole exchange may take, however steadily bytes arrive (keep-alive comments included). */
  replyTimeoutMs?: number;
  /** Characters one event may hold (default: the parser's). */
  maxEventChars?: number;
  signal?: AbortSignal;
  errors: ErrorContext;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}

/** "other side closed (UND_ERR_SOCKET)", "connect ECONNREFUSED 127.0.0.1:9 (ECONNREFUSED)" — from fetch's cause. */
function causeText(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : undefined;
  if (message && code && !message.includes(code)) return `${message} (${code})`;
  return message ?? code;
}

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/**
 * POSTs a JSON body and yields the server-sent events of the answer. Failures become typed
 * ProviderErrors: HTTP errors by status and body, no answer in time → 'timeout' (kind), a body that
 * stalls longer than idleTimeoutMs → 'timeout', a connection that breaks while streaming →
 * 'stream_dropped', a body that is not an event stream → 'malformed', the caller's abort → 'cancelled',
 * a redirect to another origin (never followed: see sameOriginFetch) → 'bad_request', not retried;
 * an exchange longer than replyTimeoutMs or an event larger than maxEventChars → 'reply_limit', not retried.
 * Ending the iteration early closes the connection.
 */
export async function* postEventStream(req: EventStreamRequest): AsyncGenerator<SseEvent> {
  const controller = new AbortController();
  let timedOut: 'headers' | 'idle' | 'reply' | undefined;
  const onAbort = () => controller.abort();
  if (req.signal?.aborted) throw cancelledError();
  req.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline =
    req.replyTimeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = 'reply';
          controller.abort();
        }, req.replyTimeoutMs);
  const arm = (which: 'headers' | 'idle', ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = which;
      controller.abort();
    }, ms);
  };
  const failure = (error: unknown, phase: 'connect' | 'body'): ProviderError => {
    if (req.signal?.aborted) return cancelledError();
    if (error instanceof ProviderError) return error;
    if (timedOut === 'reply') return replyLimitError(req.errors.provider, 'replyMs', req.replyTimeoutMs ?? 0);
    if (error instanceof RedirectError) return new ProviderError('bad_request', `${req.errors.provider}: ${redactSecrets(error.message, req.errors.secrets)}`, { retryable: false });
    if (timedOut === 'headers') {
      return new ProviderError('timeout', describeError(req.errors.provider, 'timeout', `no response from ${originOf(req.url)} within ${Math.round(req.timeoutMs / 1000)}s`));
    }
    if (timedOut === 'idle') {
      return new ProviderError('timeout', describeError(req.errors.provider, 'timeout', `the answer stalled for more than ${Math.round(req.idleTimeoutMs / 1000)}s`));
    }
    if (phase === 'connect') {
      const code = causeCode(error);
      return new ProviderError('network', describeError(req.errors.provider, 'network', `could not reach ${originOf(req.url)}${code ? ` (${code})` : ''}`), { cause: error });
    }
    return new ProviderError('stream_dropped', describeError(req.errors.provider, 'stream_dropped', causeText(error) ?? (error instanceof Error ? error.message : undefined)), { cause: error });
  };

  let finished = false;
  try {
    arm('headers', req.timeoutMs);
    let response: Response;
    try {
      response = await fetchSameOrigin(req.fetch, req.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...req.headers },
        body: req.body instanceof Uint8Array ? (req.body as Uint8Array<ArrayBuffer>) : req.body instanceof ByteChunks ? req.body : JSON.stringify(req.body),
        signal: controller.signal,
      });
    } catch (error) {
      throw failure(error, 'connect');
    }

    /** The whole body within one idle timeout; past the cap only the status speaks. */
    const readAll = async (): Promise<string> => {
      arm('idle', req.idleTimeoutMs);
      try {
        return await readTextUpTo(response, ERROR_BODY_MAX_BYTES);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return '';
        throw failure(error, 'body');
      }
    };

    if (!response.ok) {
      const text = await readAll();
      throw errorFromResponse(req.errors, response.status, response.headers, text);
    }
    const type = (response.headers.get('content-type') ?? '').toLowerCase();
    if (type.includes('application/json') || type.includes('text/html')) {
      // Some servers report errors with status 200 and a JSON body instead of a stream.
      const text = await readAll();
      const info = readErrorBody(text);
      if (type.includes('json') && /"error"/.test(text)) throw errorFromPayload(req.errors, info);
      throw new ProviderError('malformed', describeError(req.errors.provider, 'malformed', `expected an event stream, got ${type.split(';')[0]}`), { status: response.status });
    }
    if (!response.body) throw new ProviderError('malformed', describeError(req.errors.provider, 'malformed', 'the response has no body'));

    const parser = new SseParser(req.maxEventChars);
    const reader = response.body.getReader();
    try {
      for (;;) {
        arm('idle', req.idleTimeoutMs);
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw failure(error, 'body');
        }
        clearTimeout(timer);
        let events: SseEvent[];
        try {
          events = chunk.done ? parser.end() : parser.push(chunk.value);
        } catch (error) {
          if (error instanceof SseEventTooLargeError) throw replyLimitError(req.errors.provider, 'eventChars', error.limitChars);
          if (error instanceof SseSyntaxError) throw new ProviderError('malformed', describeError(req.errors.provider, 'malformed', error.message));
          throw error;
        }
        for (const event of events) yield event;
        if (chunk.done) break;
      }
      finished = true;
    } finally {
      if (!finished) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
    req.signal?.removeEventListener('abort', onAbort);
    if (!finished) controller.abort();
  }
}

/** Parses one event's JSON data; anything else is a 'malformed' ProviderError. */
export function parseEventJson(ctx: ErrorContext, event: SseEvent): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(event.data);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new ProviderError('malformed', describeError(ctx.provider, 'malformed', `an event's data is not a JSON object: ${redactAndClip(event.data, ctx.secrets, 120)}`));
}
