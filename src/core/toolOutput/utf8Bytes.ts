const encoder = new TextEncoder();
const lenient = new TextDecoder('utf-8');

/** Bytes of `text` as UTF-8 (a lone surrogate counts as U+FFFD, as it is encoded), without encoding it. */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a pair: two UTF-16 units, four bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

export function utf8Encode(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Writes `text` as UTF-8 into `out` from `at`; returns the bytes written (`out` must have room). */
export function utf8EncodeInto(text: string, out: Uint8Array, at: number): number {
  return encoder.encodeInto(text, out.subarray(at)).written;
}

/** UTF-8 bytes as text, invalid sequences shown as U+FFFD. */
export function utf8Decode(bytes: Uint8Array): string {
  return lenient.decode(bytes);
}
