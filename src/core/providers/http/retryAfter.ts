/** Reading how long a server asked us to wait, from the headers providers actually send. */

interface HeaderSource {
  get(name: string): string | null;
}

/** `retry-after` is delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfterValue(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** OpenAI's rate-limit reset durations: "1s", "6m0s", "20ms", "1h2m3.5s". */
export function parseResetDuration(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  const pattern = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(pattern)) {
    const n = Number(match[1]);
    const unit = match[2];
    total += unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
    consumed += match[0].length;
  }
  return consumed === text.length && consumed > 0 ? Math.round(total) : undefined;
}

/**
 * The wait a response asks for: `retry-after-ms`, then `retry-after`, then — for OpenAI — the reset
 * time of whichever rate limit is exhausted (`x-ratelimit-remaining-*: 0`).
 */
export function retryAfterFromHeaders(headers: HeaderSource, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms != null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms.trim()));
  const after = parseRetryAfterValue(headers.get('retry-after'), now);
  if (after !== undefined) return after;
  let wait: number | undefined;
  for (const limit of ['requests', 'tokens']) {
    if (headers.get(`x-ratelimit-remaining-${limit}`)?.trim() !== '0') continue;
    const reset = parseResetDuration(headers.get(`x-ratelimit-reset-${limit}`));
    if (reset !== undefined) wait = Math.max(wait ?? 0, reset);
  }
  return wait;
}
