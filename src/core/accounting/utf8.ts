/**
 * Writes text[from .. to) as UTF-8 into `out` (which must hold (to - from) × 3 bytes), as if that
 * range were a string of its own (a surrogate pair cut by `to` is a lone surrogate), and returns the
 * byte count. A lone surrogate becomes U+FFFD, as TextEncoder does. Faster than TextEncoder for the
 * short pieces the tokenizer encodes: no allocation, and ASCII costs one comparison per char.
 */
export function utf8RangeInto(text: string, from: number, to: number, out: Uint8Array): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
    } else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const low = i + 1 < to ? text.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
          i++;
          out[n++] = 0xf0 | (c >> 18);
          out[n++] = 0x80 | ((c >> 12) & 0x3f);
          out[n++] = 0x80 | ((c >> 6) & 0x3f);
          out[n++] = 0x80 | (c & 0x3f);
          continue;
        }
        c = 0xfffd;
      }
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 0x3f);
      out[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}
