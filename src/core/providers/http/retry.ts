import { ProviderError } from '../errors';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

export interface RetryOptions {
  /** Attempts in all, the first one included (default 4). */
  maxAttempts?: number;
  /** When to try again and after how long (default retryDelay: a failure before any output). */
  delay?: (error: unknown, attempt: number, options: RetryOptions) => number | undefined;
  /** First backoff delay (default 1 s); doubles per retry. */
  baseDelayMs?: number;
  /** Cap of the computed backoff (default 30 s). A server's retry-after is honoured as given, up to maxRetryAfterMs. */
  maxDelayMs?: number;
  /** A server asking for a longer wait than this gets no retry: the error surfaces with its retryAfterMs (default 120 s). */
  maxRetryAfterMs?: number;
  sleep?: Sleep;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  onRetry?: (info: RetryInfo) => void;
}

export const DEFAULT_RETRY = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/** Re-sends of a whole request after its answer broke off: the first attempt and two more. */
export const DEFAULT_RESENDS = 3;

export function cancelledError(): ProviderError {
  return new ProviderError('cancelled', 'The request was cancelled.');
}

export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelledError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The one backoff: the wait before retry number `attempt` (1-based) doubles from baseDelayMs up to
 * maxDelayMs, with "equal jitter" (at least half the backoff, so a storm still spreads out but
 * never hammers).
 */
export function backoffDelay(attempt: number, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const cap = options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const full = Math.min(cap, base * 2 ** (attempt - 1));
  const random = options.random ?? Math.random;
  return Math.round(full / 2 + random() * (full / 2));
}

/**
 * How long to wait before retry number `attempt` (1-based) of a request that failed before any
 * output, or undefined when `error` must not be retried. Timeouts are left to the caller: the user
 * already waited the whole timeout once.
 */
export function retryDelay(error: unknown, attempt: number, options: RetryOptions = {}): number | undefined {
  if (!(error instanceof ProviderError) || !error.retryable || error.kind === 'timeout') return undefined;
  const maxAttempts = options.maxAttempts ?? DEFAULT_RETRY.maxAttempts;
  if (attempt >= maxAttempts) return undefined;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= (options.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs) ? error.retryAfterMs : undefined;
  }
  return backoffDelay(attempt, options);
}

/**
 * How long to wait before re-sending a whole request whose answer broke off mid-stream or stalled
 * (the agent loop drops the partial answer and asks again), or undefined when it must not be
 * re-sent. Same backoff as retryDelay; by default three attempts in all.
 */
export function resendDelay(error: unknown, attempt: number, options: RetryOptions = {}): number | undefined {
  if (!(error instanceof ProviderError) || (error.kind !== 'stream_dropped' && error.kind !== 'timeout')) return undefined;
  if (attempt >= (options.maxAttempts ?? DEFAULT_RESENDS)) return undefined;
  return backoffDelay(attempt, options);
}

/** Runs `fn` until it succeeds, retrying retryable ProviderErrors with backoff. */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions & { signal?: AbortSignal } = {}): Promise<T> {
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw cancelledError();
    try {
      return await fn(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw cancelledError();
      const delayMs = (options.delay ?? retryDelay)(error, attempt, options);
      if (delayMs === undefined) throw error;
      options.onRetry?.({ attempt, delayMs, error: error as ProviderError });
      await sleep(delayMs, options.signal);
    }
  }
}

/** The stream event that tells the caller a retry is coming. */
export const announceRetry = (info: RetryInfo) => ({ type: 'retry' as const, attempt: info.attempt, delayMs: info.delayMs, reason: info.error.message });

/**
 * Streams from `open`, retrying a failed attempt only while it has yielded nothing: once output
 * reached the caller a retry would duplicate it, so later failures surface as they are.
 */
export async function* retryStream<T>(
  open: (attempt: number) => AsyncIterable<T>,
  options: RetryOptions & { signal?: AbortSignal; announce?: (info: RetryInfo) => T } = {},
): AsyncGenerator<T> {
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw cancelledError();
    let yielded = false;
    try {
      for await (const item of open(attempt)) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      if (options.signal?.aborted) throw cancelledError();
      const delayMs = yielded ? undefined : (options.delay ?? retryDelay)(error, attempt, options);
      if (delayMs === undefined) throw error;
      const info = { attempt, delayMs, error: error as ProviderError };
      options.onRetry?.(info);
      // Said before the wait, so a user waiting out a rate limit sees why (not counted as output).
      if (options.announce) yield options.announce(info);
      await sleep(delayMs, options.signal);
    }
  }
}
