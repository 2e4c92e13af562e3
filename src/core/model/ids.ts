/** A sortable unique id: millisecond time prefix plus randomness. */
export function newId(prefix = ''): string {
  const time = Date.now().toString(36).padStart(9, '0');
  const random = globalThis.crypto.getRandomValues(new Uint8Array(6));
  return prefix + time + Array.from(random, (b) => b.toString(16).padStart(2, '0')).join('');
}
