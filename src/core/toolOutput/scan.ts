import { nextTurn } from '../nextTurn';
import type { Sha256 } from '../ports/sha256';
import { looksBinary } from './binary';
import { utf8ByteLength, utf8Encode, utf8EncodeInto } from './utf8Bytes';

let newSha256: (() => Sha256) | undefined;

/** Sets the SHA-256 every scan uses; each entry point installs one (Node's, see node/usePlatform). */
export function useSha256(create: () => Sha256): void {
  newSha256 = create;
}

/** Whether `bytes` is valid UTF-8 (a slice that ends on a character boundary), by decoding it: portable, and makes a string of it. */
function isUtf8ByDecoding(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

let isUtf8: (bytes: Uint8Array) => boolean = isUtf8ByDecoding;

/** Sets how scans check UTF-8; Node's entry points install its native check (no string made, ~15× faster). */
export function useUtf8Check(check: (bytes: Uint8Array) => boolean): void {
  isUtf8 = check;
}

/**
 * Bytes handled between turns of the event loop: hashing, counting the lines and checking the
 * UTF-8 of 1 MiB takes ≈ 5 ms (4 MiB held the host 20–80 ms under load).
 */
export const SCAN_SLICE_BYTES = 1024 * 1024;

/** What the recorder needs to know about a tool's output before deciding how to keep it. */
export interface OutputScan {
  /** The output as bytes (a view of the caller's bytes when it gave bytes, never a copy). */
  bytes: Uint8Array;
  byteSize: number;
  /** Lines as an editor counts them: a final newline does not start another line. */
  lineCount: number;
  sha256: string;
  invalidUtf8: boolean;
  binary: boolean;
}

/** Where to end a slice of `text` near `end` without splitting a surrogate pair. */
function charSafeEnd(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** UTF-8 bytes of a (possibly huge) string, encoded slice by slice between event-loop turns. */
export async function encodeUtf8(text: string): Promise<Uint8Array> {
  if (text.length <= SCAN_SLICE_BYTES) return utf8Encode(text);
  const cuts: number[] = [0];
  let size = 0;
  for (let start = 0; start < text.length; ) {
    const end = charSafeEnd(text, start + SCAN_SLICE_BYTES);
    size += utf8ByteLength(text.slice(start, end));
    cuts.push(end);
    start = end;
    await nextTurn();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (let i = 1; i < cuts.length; i++) {
    at += utf8EncodeInto(text.slice(cuts[i - 1], cuts[i]), bytes, at);
    await nextTurn();
  }
  return bytes;
}

/** Index in `bytes` at or before `end` that does not fall inside a UTF-8 sequence. */
function utf8SafeEnd(bytes: Uint8Array, start: number, end: number): number {
  if (end >= bytes.length) return bytes.length;
  let cut = end;
  while (cut > start && end - cut < 4 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return cut > start ? cut : end;
}

/**
 * Hashes, counts lines and checks UTF-8 in slices, with a turn for the event loop between them,
 * so a 100 MB output never holds the extension host's thread for long.
 */
export async function scanOutput(output: string | Uint8Array): Promise<OutputScan> {
  const bytes = typeof output === 'string' ? await encodeUtf8(output) : output;
  if (!newSha256) throw new Error('tool output cannot be hashed: no SHA-256 is installed (useSha256)');
  const hash = newSha256();
  let newlines = 0;
  let invalidUtf8 = false;
  for (let start = 0; start < bytes.length; ) {
    const end = utf8SafeEnd(bytes, start, Math.min(bytes.length, start + SCAN_SLICE_BYTES));
    const slice = bytes.subarray(start, end);
    hash.update(slice);
    for (let i = slice.indexOf(10); i !== -1; i = slice.indexOf(10, i + 1)) newlines++;
    if (!invalidUtf8 && typeof output !== 'string' && !isUtf8(slice)) invalidUtf8 = true;
    start = end;
    if (start < bytes.length) await nextTurn();
  }
  const endsWithNewline = bytes.length > 0 && bytes[bytes.length - 1] === 10;
  const lineCount = bytes.length === 0 ? 0 : newlines + (endsWithNewline ? 0 : 1);
  return { bytes, byteSize: bytes.length, lineCount, sha256: hash.hex(), invalidUtf8, binary: looksBinary(bytes) };
}
