/**
 * A short, stable hash of a text (two 32-bit FNV-1a variants over its UTF-16 code units, and its
 * length): names a prompt text so it is stored once and referenced by every request that carries it.
 * Not a security hash; the texts it tells apart are one session's prompt parts.
 */
export function textHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(16).padStart(8, '0')}${(b >>> 0).toString(16).padStart(8, '0')}-${text.length.toString(36)}`;
}
