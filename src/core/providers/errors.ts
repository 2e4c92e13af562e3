export type ProviderErrorKind =
  | 'context_too_long' // the prompt does not fit the model's window: compact and retry
  | 'rate_limited' // 429
  | 'quota' // the account's quota or credit is used up, or its billing is in trouble: waiting does not help
  | 'overloaded' // Anthropic 529 / overloaded_error, 503
  | 'server' // other 5xx
  | 'auth' // 401 / 403: missing or wrong API key
  | 'bad_request' // other 4xx: the request itself is wrong
  | 'network' // the server could not be reached or closed before answering
  | 'timeout' // no answer, or a stream that stalled, past the configured time
  | 'stream_dropped' // the connection broke while the answer was streaming
  | 'malformed' // the server sent something that is not the wire format
  | 'reply_limit' // the reply passed one of Tally's limits (size, time): not retried
  | 'cancelled'; // the caller's AbortSignal fired

/** Kinds where sending the same request again may succeed. */
const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limited', 'overloaded', 'server', 'network', 'stream_dropped', 'timeout']);

export interface ProviderErrorInit {
  status?: number;
  retryAfterMs?: number;
  /** Overrides the kind's default (e.g. a 429 for an exhausted quota is not worth retrying). */
  retryable?: boolean;
  /** The provider's own error type/code, e.g. 'overloaded_error', 'context_length_exceeded'. */
  code?: string;
  cause?: unknown;
}

/**
 * A provider failure with a kind the agent loop can act on. The message is meant for the user and
 * has already been scrubbed of API keys.
 */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly retryable: boolean;
  readonly code?: string;

  constructor(kind: ProviderErrorKind, message: string, init: ProviderErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.retryable = init.retryable ?? RETRYABLE.has(kind);
    this.code = init.code;
  }
}

/**
 * Removes secrets from text shown to the user: the configured keys themselves (also URL-encoded)
 * and anything that looks like a provider key, bearer token or x-api-key value (servers sometimes
 * echo the key they rejected). Keys glued to a word (`tokensk-...`) are caught too.
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('[redacted]');
  }
  return out
    .replace(/sk-[A-Za-z0-9_*-]{8,}/g, '[redacted]')
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[redacted]')
    .replace(/((?:x-api-key|api[_-]?key)["']?\s*[:=]\s*["']?)[^\s"',;}&]{4,}/gi, '$1[redacted]');
}

/** Redacts first, then cuts to `max` characters, so a key cut in half never survives the cut. */
export function redactAndClip(text: string, secrets: ReadonlyArray<string | undefined>, max: number): string {
  const clean = redactSecrets(text, secrets);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
