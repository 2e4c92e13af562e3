import type { TruncationInfo } from '../model/message';
import { utf8ByteLength, utf8Decode, utf8Encode } from './utf8Bytes';

export interface TruncationLimits {
  maxLines: number;
  maxBytes: number;
}

export interface Truncated {
  text: string;
  info?: TruncationInfo;
  /** The input bytes were not valid UTF-8 and were decoded with replacement characters. */
  invalidUtf8?: boolean;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Decodes bytes as UTF-8, noting whether anything had to be replaced. */
export function decodeOutput(output: string | Uint8Array): { text: string; invalidUtf8: boolean } {
  if (typeof output === 'string') return { text: output, invalidUtf8: false };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(output), invalidUtf8: false };
  } catch {
    return { text: new TextDecoder('utf-8', { fatal: false }).decode(output), invalidUtf8: true };
  }
}

function countLines(text: string): number {
  if (!text) return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) if (i < text.length - 1) lines++;
  return lines;
}

/** The longest prefix of `text` whose UTF-8 encoding fits `maxBytes`, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  let candidate = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  if (utf8ByteLength(candidate) <= maxBytes) return candidate;
  const bytes = utf8Encode(candidate);
  let cut = maxBytes;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--; // back to a character's first byte
  candidate = utf8Decode(bytes.subarray(0, cut));
  return candidate.endsWith('\uFFFD') && !text.startsWith(candidate) ? candidate.slice(0, -1) : candidate;
}

/** The longest suffix of `text` whose UTF-8 encoding fits `maxBytes`, never splitting a character. */
export function utf8Suffix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  let candidate = text.length > maxBytes ? text.slice(text.length - maxBytes) : text;
  if (utf8ByteLength(candidate) <= maxBytes) return candidate;
  const bytes = utf8Encode(candidate);
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  candidate = utf8Decode(bytes.subarray(start));
  return candidate.startsWith('\uFFFD') && !text.endsWith(candidate) ? candidate.slice(1) : candidate;
}

/** Index just past the n-th newline from the start (or the text's end). */
function afterLines(text: string, n: number): number {
  let at = 0;
  for (let k = 0; k < n; k++) {
    const next = text.indexOf('\n', at);
    if (next === -1) return text.length;
    at = next + 1;
  }
  return at;
}

/** Index where the last n lines begin. */
function beforeLastLines(text: string, n: number): number {
  let at = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let k = 0; k < n; k++) {
    const prev = text.lastIndexOf('\n', at - 1);
    if (prev === -1) return 0;
    at = prev;
  }
  return at === 0 ? 0 : at + 1;
}

/** The marker that stands where lines and bytes were left out. */
function marked(head: string, tail: string, totalLines: number, totalBytes: number, invalidUtf8: boolean): Truncated {
  const keptBytes = utf8ByteLength(head) + utf8ByteLength(tail);
  const keptLines = countLines(head) + countLines(tail);
  const omittedLines = Math.max(0, totalLines - keptLines);
  const omittedBytes = Math.max(0, totalBytes - keptBytes);
  const marker = `[… omitted ${fmt(omittedLines)} of ${fmt(totalLines)} lines (${fmt(omittedBytes)} bytes) …]`;
  const joined = `${head}${head.endsWith('\n') || !head ? '' : '\n'}${marker}\n${tail}`;
  return {
    text: joined,
    invalidUtf8,
    info: { originalBytes: totalBytes, originalLines: totalLines, keptBytes, omittedLines, omittedBytes },
  };
}

const MARKER_BUDGET = 120;

function halves(limits: TruncationLimits) {
  return {
    headLines: Math.ceil(limits.maxLines / 2),
    tailLines: Math.floor(limits.maxLines / 2),
    halfBytes: Math.max(0, Math.floor((limits.maxBytes - MARKER_BUDGET) / 2)),
  };
}

/**
 * Head + tail truncation by lines and by bytes: keeps the first and the last lines (where
 * errors usually are) and says in the middle what was left out. Works on scans from both ends, so
 * a 10 MB output costs about as much as finding its newlines.
 */
export function truncateOutput(output: string | Uint8Array, limits: TruncationLimits): Truncated {
  const { text, invalidUtf8 } = decodeOutput(output);
  const totalBytes = typeof output === 'string' ? utf8ByteLength(text) : output.length;
  const totalLines = countLines(text);
  if (totalLines <= limits.maxLines && totalBytes <= limits.maxBytes) return { text, invalidUtf8 };

  const { headLines, tailLines, halfBytes } = halves(limits);
  let head = text.slice(0, afterLines(text, headLines));
  let tail = text.slice(beforeLastLines(text, tailLines));
  if (head.length + tail.length >= text.length) {
    // The lines fit: only bytes are over. Split the byte budget between both ends.
    head = utf8Prefix(text, halfBytes);
    tail = utf8Suffix(text.slice(head.length), halfBytes);
  } else {
    head = utf8Prefix(head, halfBytes);
    tail = utf8Suffix(tail, halfBytes);
  }
  return marked(head, tail, totalLines, totalBytes, invalidUtf8);
}

/** Outputs above this size are truncated from their two ends only, never decoded whole. */
export const WHOLE_DECODE_MAX_BYTES = 1024 * 1024;

/** An output already measured by scanOutput: its bytes, size, line count and UTF-8 validity. */
export interface MeasuredOutput {
  bytes: Uint8Array;
  byteSize: number;
  lineCount: number;
  invalidUtf8: boolean;
}

/**
 * The same truncation for an output whose lines were already counted: a large one decodes only
 * the bytes each end can keep, so a 100 MB output costs two small decodes, not one huge one.
 */
export function truncateMeasured(output: MeasuredOutput, limits: TruncationLimits): Truncated {
  const { halfBytes, headLines, tailLines } = halves(limits);
  const window = halfBytes + 4; // room for the character that straddles the cut
  if (output.byteSize <= WHOLE_DECODE_MAX_BYTES || output.byteSize <= 2 * window + limits.maxBytes) {
    return truncateOutput(output.bytes, limits);
  }
  const headText = utf8Decode(output.bytes.subarray(0, window));
  const tailText = utf8Decode(output.bytes.subarray(output.byteSize - window));
  let head: string;
  let tail: string;
  if (output.lineCount <= limits.maxLines) {
    // Few, long lines: only bytes are over.
    head = utf8Prefix(headText, halfBytes);
    tail = utf8Suffix(tailText, halfBytes);
  } else {
    head = utf8Prefix(headText.slice(0, afterLines(headText, headLines)), halfBytes);
    tail = utf8Suffix(tailText.slice(beforeLastLines(tailText, tailLines)), halfBytes);
  }
  return marked(head, tail, output.lineCount, output.byteSize, output.invalidUtf8);
}
