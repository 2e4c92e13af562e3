/**
 * Standard base64 with padding, for images of up to a few megabytes on the host's thread (core has
 * no Buffer or btoa: Node entry points install Buffer's encoder). Both directions in script work on
 * typed arrays and look characters up in a 256-entry table: a 5 MB image takes tens of
 * milliseconds, where a string built a character at a time and a Map lookup per character held the
 * host for over a second. Decoding stays in script: it must refuse what is not base64, which
 * Buffer's decoder skips.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ENCODE = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** Each character code's 6-bit value; 255 for a character outside the alphabet. */
const DECODE = new Uint8Array(256).fill(255);
for (let i = 0; i < ENCODE.length; i++) DECODE[ENCODE[i]] = i;
const PAD = 61; // '='
/** Encoded characters turned into a string at a time (an ASCII decode of a slice). */
const TEXT_CHUNK = 1 << 20;
const ascii = new TextDecoder('utf-8');

let nativeEncoder: ((bytes: Uint8Array) => string) | undefined;

/** Installs the platform's own encoder (Node's Buffer, see node/usePlatform): a 5 MB image in a few milliseconds. */
export function useBase64Encoder(encode: (bytes: Uint8Array) => string): void {
  nativeEncoder = encode;
}

export function toBase64(bytes: Uint8Array): string {
  return nativeEncoder ? nativeEncoder(bytes) : base64InScript(bytes);
}

/** The encoding in plain script, where the platform installed none (and to check one against). */
export function base64InScript(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  const whole = bytes.length - (bytes.length % 3);
  let at = 0;
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out[at++] = ENCODE[n >> 18];
    out[at++] = ENCODE[(n >> 12) & 63];
    out[at++] = ENCODE[(n >> 6) & 63];
    out[at++] = ENCODE[n & 63];
  }
  const rest = bytes.length - whole;
  if (rest > 0) {
    const n = (bytes[whole] << 16) | (rest === 2 ? bytes[whole + 1] << 8 : 0);
    out[at++] = ENCODE[n >> 18];
    out[at++] = ENCODE[(n >> 12) & 63];
    out[at++] = rest === 2 ? ENCODE[(n >> 6) & 63] : PAD;
    out[at++] = PAD;
  }
  if (out.length <= TEXT_CHUNK) return ascii.decode(out);
  const parts: string[] = [];
  for (let start = 0; start < out.length; start += TEXT_CHUNK) parts.push(ascii.decode(out.subarray(start, start + TEXT_CHUNK)));
  return parts.join('');
}

/** The bytes of base64 text (padding optional); throws on a character outside the alphabet. */
export function fromBase64(text: string): Uint8Array {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === PAD) end--;
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let at = 0;
  let i = 0;
  const whole = end - (end % 4);
  for (; i < whole; i += 4) {
    const a = valueOf(text.charCodeAt(i));
    const b = valueOf(text.charCodeAt(i + 1));
    const c = valueOf(text.charCodeAt(i + 2));
    const d = valueOf(text.charCodeAt(i + 3));
    // Values are 0–63, or 255 for a character outside the alphabet: any 255 makes the OR 255.
    if ((a | b | c | d) === 255) throw notBase64();
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[at++] = n >> 16;
    out[at++] = (n >> 8) & 255;
    out[at++] = n & 255;
  }
  // The last 2 or 3 characters of unpadded (or padding-stripped) text: 1 or 2 more bytes.
  let value = 0;
  let bits = 0;
  for (; i < end; i++) {
    const v = valueOf(text.charCodeAt(i));
    if (v === 255) throw notBase64();
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 255;
    }
  }
  return out.subarray(0, at);
}

function valueOf(code: number): number {
  return code > 255 ? 255 : DECODE[code];
}

function notBase64(): Error {
  return new Error('the image data is not base64');
}
