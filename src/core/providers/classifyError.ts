import { ProviderError, redactAndClip, type ProviderErrorKind } from './errors';
import { retryAfterFromHeaders } from './http/retryAfter';

/** The parts of an error body Tally looks at, whatever shape the server used. */
export interface ErrorInfo {
  message?: string;
  type?: string;
  code?: string;
}

/**
 * Wording servers use when a prompt does not fit the window:
 * - Anthropic: "prompt is too long: 210000 tokens > 200000 maximum",
 *   "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, …"
 * - OpenAI and vLLM: "This model's maximum context length is 8192 tokens. However, you requested …"
 * - llama.cpp server: "the request exceeds the available context size …" (type exceed_context_size_error)
 * - Ollama: "… exceeds the context length …"; OpenAI Responses: "… exceeds the context window …"
 * - LM Studio: "The number of tokens to keep from the initial prompt is greater than the context length",
 *   "Trying to keep the first 111490 tokens when context the overflows", "n_keep (15028) >= n_ctx (7424)"
 * - GitHub Copilot (through VS Code's Language Model API): "prompt token count of 132354 exceeds the
 *   limit of 128000" (code model_max_prompt_tokens_exceeded), "Message exceeds token limit."
 */
const CONTEXT_PATTERNS: RegExp[] = [
  /prompt is too long/i,
  /exceeds? context limit/i,
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /exceeds? the (available |maximum )?context (size|length|window)/i,
  /greater than the context length/i,
  /when context the overflows/i,
  /n_keep\s*\(?\d+\)?\s*>=?\s*n_ctx/i,
  /input token count .*exceeds the maximum/i,
  /too many (input )?tokens.*(context|window)/i,
  /prompt token count of \d+ exceeds the limit/i,
  /exceeds (the )?token limit/i,
  /model_max_prompt_tokens_exceeded/i,
];

const CONTEXT_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error', 'context_window_exceeded', 'request_too_large', 'model_max_prompt_tokens_exceeded']);

/** The wordings above all start early in a message; a longer one is only looked at up to here. */
const CONTEXT_MESSAGE_CHARS = 4096;

export function isContextTooLong(info: ErrorInfo): boolean {
  if (info.code && CONTEXT_CODES.has(info.code)) return true;
  if (info.type && CONTEXT_CODES.has(info.type)) return true;
  const message = (info.message ?? '').slice(0, CONTEXT_MESSAGE_CHARS);
  return CONTEXT_PATTERNS.some((pattern) => pattern.test(message));
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * The text of an error page (HTML or plain): each `<…>` and each run of whitespace becomes one
 * space. One pass over the page, so a page built to make a pattern backtrack (a megabyte of
 * unclosed `<`) costs no more than its length.
 */
function pageText(page: string): string {
  const words: string[] = [];
  const lastClose = page.lastIndexOf('>');
  let wordStart = -1;
  const endWord = (at: number) => {
    if (wordStart >= 0) words.push(page.slice(wordStart, at));
    wordStart = -1;
  };
  for (let i = 0; i < page.length; i++) {
    const ch = page[i];
    if (ch === '<' && i < lastClose) {
      endWord(i);
      i = page.indexOf('>', i + 1);
    } else if (ch.trim() === '') {
      endWord(i);
    } else if (wordStart < 0) {
      wordStart = i;
    }
  }
  endWord(page.length);
  return words.join(' ');
}

/**
 * Reads the error shapes seen in the wild: `{type:'error', error:{type, message}}` (Anthropic),
 * `{error:{message, type, code}}` (OpenAI, Ollama, llama.cpp), `{object:'error', message, type, code}`
 * (vLLM), `{error:'text'}` (LM Studio), `{message}` and plain text.
 */
export function readErrorBody(text: string): ErrorInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const plain = pageText(text);
    return { message: plain || undefined };
  }
  if (!parsed || typeof parsed !== 'object') return { message: asText(parsed) };
  const root = parsed as Record<string, unknown>;
  const inner = root.error;
  if (typeof inner === 'string') return { message: inner, type: asText(root.type), code: asText(root.code) };
  if (inner && typeof inner === 'object') {
    const e = inner as Record<string, unknown>;
    return { message: asText(e.message), type: asText(e.type), code: asText(e.code) ?? asText(e.status) };
  }
  return { message: asText(root.message) ?? asText(root.detail), type: asText(root.type), code: asText(root.code) };
}

/** Anthropic error types (also sent inside a stream's `error` event) and what they mean here. */
const TYPE_KINDS: Record<string, ProviderErrorKind> = {
  invalid_request_error: 'bad_request',
  authentication_error: 'auth',
  permission_error: 'auth',
  billing_error: 'quota',
  insufficient_quota: 'quota',
  not_found_error: 'bad_request',
  request_too_large: 'context_too_long',
  rate_limit_error: 'rate_limited',
  api_error: 'server',
  overloaded_error: 'overloaded',
  timeout_error: 'server',
  server_error: 'server',
};

function kindForStatus(status: number): ProviderErrorKind {
  if (status === 402) return 'quota';
  if (status === 401 || status === 403) return 'auth';
  if (status === 413) return 'context_too_long';
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status === 409 || status >= 500) return 'server';
  return 'bad_request';
}

const KIND_WORDS: Record<ProviderErrorKind, string> = {
  context_too_long: 'the prompt is too long for the model',
  rate_limited: 'rate limited',
  quota: "quota or billing: the account behind the key has no quota or credit left, or its billing needs attention (not retried; see the provider's billing page)",
  overloaded: 'the service is overloaded',
  server: 'server error',
  auth: 'authentication failed (check the API key)',
  bad_request: 'the request was rejected',
  network: 'network error',
  timeout: 'timed out',
  stream_dropped: 'the connection dropped mid-answer',
  malformed: 'unexpected response',
  reply_limit: 'reply over a limit',
  cancelled: 'cancelled',
};

export function describeError(provider: string, kind: ProviderErrorKind, detail?: string, status?: number): string {
  const head = `${provider}: ${KIND_WORDS[kind]}${status ? ` (HTTP ${status})` : ''}`;
  return detail ? `${head}: ${detail}` : head;
}

export interface ErrorContext {
  /** Label used in messages, e.g. "Anthropic". */
  provider: string;
  /** Values that must never appear in a message (the API key). */
  secrets: ReadonlyArray<string | undefined>;
}

/**
 * An exhausted quota or a billing problem, however the server says it: OpenAI's `insufficient_quota`
 * (a 429, or an error inside a 200 stream), Anthropic's `billing_error` and its "credit balance is
 * too low" (a 400 invalid_request_error), HTTP 402.
 */
export function isQuotaOrBilling(info: ErrorInfo): boolean {
  if (info.code === 'insufficient_quota' || info.type === 'insufficient_quota' || info.type === 'billing_error' || info.code === 'billing_error') return true;
  const message = (info.message ?? '').slice(0, CONTEXT_MESSAGE_CHARS);
  return /exceeded your current quota|credit balance is too low|check your plan and billing details/i.test(message);
}

/** The ProviderError for a non-2xx HTTP response. */
export function errorFromResponse(ctx: ErrorContext, status: number, headers: { get(name: string): string | null }, bodyText: string): ProviderError {
  const info = readErrorBody(bodyText);
  let kind = kindForStatus(status);
  if (isContextTooLong(info)) kind = 'context_too_long';
  else if (isQuotaOrBilling(info)) kind = 'quota';
  const retryAfterMs = retryAfterFromHeaders(headers);
  const detail = redactAndClip(info.message ?? '', ctx.secrets, 1000) || undefined;
  let message = describeError(ctx.provider, kind, detail, status);
  if (kind === 'rate_limited' && retryAfterMs !== undefined) message += ` (retry after ${Math.ceil(retryAfterMs / 1000)}s)`;
  return new ProviderError(kind, message, {
    status,
    retryAfterMs,
    code: info.code ?? info.type,
  });
}

/** The ProviderError for an error reported inside a stream (Anthropic `error` event, OpenAI `{error}` chunk). */
export function errorFromPayload(ctx: ErrorContext, info: ErrorInfo): ProviderError {
  let kind: ProviderErrorKind = (info.type ? TYPE_KINDS[info.type] : undefined) ?? 'server';
  if (isContextTooLong(info)) kind = 'context_too_long';
  else if (isQuotaOrBilling(info)) kind = 'quota';
  else if (info.code === 'rate_limit_exceeded') kind = 'rate_limited';
  const detail = redactAndClip(info.message ?? info.type ?? '', ctx.secrets, 1000) || undefined;
  return new ProviderError(kind, describeError(ctx.provider, kind, detail), { code: info.code ?? info.type });
}

/**
 * The prompt's size as the server counted it, when its context-length message says it:
 * "your messages resulted in 208450 tokens", "you requested 210000 tokens (208450 in the messages,
 * 1550 in the completion)", "prompt is too long: 208450 tokens > 200000 maximum", "input length and
 * `max_tokens` exceed context limit: 188240 + 21333 > 200000", "prompt token count of 132354
 * exceeds the limit", llama.cpp's "request (8202 tokens) exceeds the available context size".
 */
export function serverPromptTokens(message: string): number | undefined {
  const text = message.slice(0, CONTEXT_MESSAGE_CHARS).replace(/(\d),(?=\d{3}\b)/g, '$1');
  const patterns = [
    /\((\d+) in the messages/i,
    /messages resulted in (\d+) tokens/i,
    /prompt is too long:\s*(\d+) tokens/i,
    /exceed context limit:\s*(\d+)\s*\+/i,
    /prompt token count of (\d+)/i,
    /request \((\d+) tokens\) exceeds/i,
    /you requested (\d+) tokens/i,
  ];
  for (const pattern of patterns) {
    const found = pattern.exec(text);
    if (found) return Number(found[1]);
  }
  return undefined;
}
