import { strict as assert } from 'assert';
import { ProviderError } from '../../../../src/core/providers/errors';
import { backoffDelay, resendDelay, retryDelay, retryStream, withRetry, defaultSleep } from '../../../../src/core/providers/http/retry';
import { parseResetDuration, parseRetryAfterValue, retryAfterFromHeaders } from '../../../../src/core/providers/http/retryAfter';

const headers = (values: Record<string, string>) => new Headers(values);

describe('retry-after parsing', () => {
  it('reads delay-seconds and HTTP dates', () => {
    assert.equal(parseRetryAfterValue('7'), 7000);
    assert.equal(parseRetryAfterValue('1.5'), 1500);
    const now = Date.parse('2025-06-01T12:00:00Z');
    assert.equal(parseRetryAfterValue('Sun, 01 Jun 2025 12:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfterValue('Sun, 01 Jun 2025 11:00:00 GMT', now), 0, 'a date in the past means now');
    assert.equal(parseRetryAfterValue('soon'), undefined);
    assert.equal(parseRetryAfterValue(null), undefined);
  });

  it('prefers retry-after-ms, then retry-after, then the reset of an exhausted OpenAI limit', () => {
    assert.equal(retryAfterFromHeaders(headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
    assert.equal(retryAfterFromHeaders(headers({ 'retry-after': '9' })), 9000);
    assert.equal(
      retryAfterFromHeaders(headers({ 'x-ratelimit-remaining-requests': '12', 'x-ratelimit-reset-requests': '1m0s', 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '2.4s' })),
      2400,
    );
    assert.equal(retryAfterFromHeaders(headers({ 'x-ratelimit-remaining-tokens': '5', 'x-ratelimit-reset-tokens': '2s' })), undefined);
  });

  it('reads OpenAI reset durations', () => {
    assert.equal(parseResetDuration('6m0s'), 360_000);
    assert.equal(parseResetDuration('20ms'), 20);
    assert.equal(parseResetDuration('1h2m3.5s'), 3_723_500);
    assert.equal(parseResetDuration('later'), undefined);
  });
});

describe('retry policy', () => {
  const server = new ProviderError('server', 'boom', { status: 500 });

  it('backs off exponentially with jitter, within [half, full] of the step, capped', () => {
    const low = [1, 2, 3, 4, 5, 6, 7].map((a) => retryDelay(server, a, { maxAttempts: 10, random: () => 0 }));
    const high = [1, 2, 3, 4, 5, 6, 7].map((a) => retryDelay(server, a, { maxAttempts: 10, random: () => 0.999999 }));
    assert.deepEqual(low, [500, 1000, 2000, 4000, 8000, 15_000, 15_000]);
    assert.deepEqual(high, [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('honours retry-after exactly, but not beyond maxRetryAfterMs', () => {
    const limited = new ProviderError('rate_limited', 'slow down', { status: 429, retryAfterMs: 4200 });
    assert.equal(retryDelay(limited, 1), 4200);
    const long = new ProviderError('rate_limited', 'slow down', { status: 429, retryAfterMs: 600_000 });
    assert.equal(retryDelay(long, 1), undefined);
  });

  it('does not retry what waiting cannot fix, nor timeouts, nor past maxAttempts', () => {
    assert.equal(retryDelay(new ProviderError('context_too_long', 'x'), 1), undefined);
    assert.equal(retryDelay(new ProviderError('auth', 'x'), 1), undefined);
    assert.equal(retryDelay(new ProviderError('rate_limited', 'quota', { retryable: false }), 1), undefined);
    assert.equal(retryDelay(new ProviderError('timeout', 'x'), 1), undefined);
    assert.equal(retryDelay(new Error('not a provider error'), 1), undefined);
    assert.equal(retryDelay(server, 4, { maxAttempts: 4 }), undefined);
    assert.ok(retryDelay(server, 3, { maxAttempts: 4 })! > 0);
  });

  it('re-sends a request whose answer broke off or stalled with the same backoff, at most three attempts in all', () => {
    const dropped = new ProviderError('stream_dropped', 'the connection dropped mid-answer');
    const stalled = new ProviderError('timeout', 'no data for 60 s');
    const opts = { random: () => 0.5 };
    assert.equal(resendDelay(dropped, 1, opts), backoffDelay(1, opts));
    assert.equal(resendDelay(stalled, 2, opts), backoffDelay(2, opts));
    assert.equal(resendDelay(dropped, 3, opts), undefined, 'the first attempt and two re-sends');
    assert.equal(resendDelay(new ProviderError('server', 'HTTP 500'), 1, opts), undefined, 'the provider already retried that');
    assert.equal(resendDelay(new ProviderError('auth', 'bad key'), 1, opts), undefined);
    assert.equal(retryDelay(new ProviderError('server', 'HTTP 500'), 2, opts), backoffDelay(2, opts), 'one backoff for both');
  });

  it('withRetry takes the re-send policy and announces each wait', async () => {
    const waits: number[] = [];
    const announced: Array<[number, number]> = [];
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new ProviderError('stream_dropped', 'dropped');
        return 'answer';
      },
      { delay: resendDelay, random: () => 0, sleep: async (ms) => void waits.push(ms), onRetry: (i) => announced.push([i.attempt, i.delayMs]) },
    );
    assert.equal(result, 'answer');
    assert.deepEqual(waits, [500, 1000]);
    assert.deepEqual(announced, [[1, 500], [2, 1000]]);
  });

  it('withRetry retries until success and reports each retry', async () => {
    let calls = 0;
    const seen: number[] = [];
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw server;
        return 'ok';
      },
      { sleep: async () => undefined, onRetry: (info) => seen.push(info.attempt) },
    );
    assert.equal(result, 'ok');
    assert.deepEqual(seen, [1, 2]);
  });

  it('withRetry stops at once when aborted during the wait', async () => {
    const controller = new AbortController();
    await assert.rejects(
      withRetry(async () => {
        throw new ProviderError('rate_limited', 'wait', { retryAfterMs: 60_000 });
        // Aborted once the 60 s wait has begun (the microtask runs after the sleep started).
      }, { signal: controller.signal, sleep: defaultSleep, onRetry: () => queueMicrotask(() => controller.abort()) }),
      (e: unknown) => e instanceof ProviderError && e.kind === 'cancelled',
    );
  });

  it('retryStream retries only while nothing has been yielded', async () => {
    let attempts = 0;
    async function* flaky(): AsyncGenerator<string> {
      attempts++;
      if (attempts === 1) throw server;
      yield 'a';
      if (attempts === 2) throw new ProviderError('stream_dropped', 'cut');
      yield 'b';
    }
    const got: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const item of retryStream(flaky, { sleep: async () => undefined })) got.push(item);
      })(),
      (e: unknown) => e instanceof ProviderError && e.kind === 'stream_dropped',
    );
    assert.equal(attempts, 2);
    assert.deepEqual(got, ['a']);
  });
});
