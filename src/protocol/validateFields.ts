/**
 * Small field readers for validating messages that cross the webview boundary.
 * Each reader returns the value or a reason; nothing here throws.
 */

export const LIMITS = {
  /** Free text such as a chat message. */
  textBytes: 100 * 1024,
  /** Ids: session, message, tool call, blob ref. */
  idChars: 200,
  /** A request item's id ('agents:<path>' for an AGENTS.md file). */
  itemIdBytes: 8 * 1024,
  /** The focus instruction of a compaction. */
  focusBytes: 2 * 1024,
  /** A compaction summary the user edited in the preview. */
  summaryBytes: 256 * 1024,
  /** A code block the user copies or inserts. */
  codeBytes: 1024 * 1024,
  /** A link the user opens. */
  urlChars: 2048,
} as const;

export type Fields = Record<string, unknown>;
export type Check<T> = { ok: true; value: T } | { ok: false; error: string };

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function exceedsUtf8(text: string, maxBytes: number): boolean {
  // Every UTF-16 unit is 1 to 3 UTF-8 bytes, so most strings are decided without encoding.
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return new TextEncoder().encode(text).length > maxBytes;
}

/** A plain, non-array object with only the allowed keys; returns a null-prototype copy. */
export function readObject(value: unknown, allowed: readonly string[]): Check<Fields> {
  if (value === null || typeof value !== 'object') return { ok: false, error: 'message is not an object' };
  if (Array.isArray(value)) return { ok: false, error: 'message is an array' };
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return { ok: false, error: 'message is not a plain object' };
  const out: Fields = Object.create(null);
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string') return { ok: false, error: 'message has a symbol key' };
    if (FORBIDDEN_KEYS.has(key)) return { ok: false, error: `forbidden key "${key}"` };
    if (!allowed.includes(key)) return { ok: false, error: `unexpected key "${key.slice(0, 40)}"` };
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (!descriptor || !('value' in descriptor)) return { ok: false, error: `key "${key}" is an accessor` };
    out[key] = descriptor.value;
  }
  return { ok: true, value: out };
}

export function readString(fields: Fields, key: string, maxBytes: number, opts: { allowEmpty?: boolean } = {}): Check<string> {
  const v = fields[key];
  if (typeof v !== 'string') return { ok: false, error: `"${key}" must be a string` };
  if (!opts.allowEmpty && v.length === 0) return { ok: false, error: `"${key}" must not be empty` };
  if (exceedsUtf8(v, maxBytes)) return { ok: false, error: `"${key}" is longer than ${maxBytes} bytes` };
  return { ok: true, value: v };
}

export function readId(fields: Fields, key: string): Check<string> {
  const v = fields[key];
  if (typeof v !== 'string') return { ok: false, error: `"${key}" must be a string` };
  if (v.length === 0) return { ok: false, error: `"${key}" must not be empty` };
  if (v.length > LIMITS.idChars) return { ok: false, error: `"${key}" is longer than ${LIMITS.idChars} characters` };
  return { ok: true, value: v };
}

export function readOptionalFocus(fields: Fields, key: string): Check<string | undefined> {
  if (fields[key] === undefined) return { ok: true, value: undefined };
  return readString(fields, key, LIMITS.focusBytes, { allowEmpty: true });
}

export function readBoolean(fields: Fields, key: string): Check<boolean> {
  const v = fields[key];
  if (typeof v !== 'boolean') return { ok: false, error: `"${key}" must be a boolean` };
  return { ok: true, value: v };
}

/** A non-negative safe integer (indexes, byte offsets). */
export function readIndex(fields: Fields, key: string): Check<number> {
  const v = fields[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return { ok: false, error: `"${key}" must be a non-negative integer` };
  return { ok: true, value: v };
}

export function readType(value: unknown): Check<string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'message is not an object' };
  let type: unknown;
  try {
    const d = Object.getOwnPropertyDescriptor(value, 'type');
    type = d && 'value' in d ? d.value : undefined;
  } catch {
    return { ok: false, error: 'message cannot be read' };
  }
  if (typeof type !== 'string') return { ok: false, error: 'message has no string "type"' };
  return { ok: true, value: type };
}

/** An absolute http, https or mailto URL (what a chat link may open). */
export function readOpenableUrl(fields: Fields, key: string): Check<string> {
  const v = readString(fields, key, LIMITS.urlChars);
  if (!v.ok) return v;
  if (v.value.length > LIMITS.urlChars) return { ok: false, error: `"${key}" is longer than ${LIMITS.urlChars} characters` };
  let url: URL;
  try {
    url = new URL(v.value);
  } catch {
    return { ok: false, error: `"${key}" is not a URL` };
  }
  if (!['http:', 'https:', 'mailto:'].includes(url.protocol)) return { ok: false, error: `"${key}" must be an http, https or mailto link` };
  return { ok: true, value: v.value };
}
