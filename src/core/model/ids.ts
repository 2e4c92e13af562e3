const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Random bytes drawn 3 KiB at a time: one call per 512 ids instead of one per id. */
const POOL_BYTES = 6 * 512;
let pool = new Uint8Array(0);
let used = 0;

/** A sortable unique id: millisecond time prefix plus 48 random bits. */
export function newId(prefix = ''): string {
  if (used + 6 > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    used = 0;
  }
  let random = '';
  for (let i = 0; i < 6; i++) random += HEX[pool[used++]];
  return prefix + Date.now().toString(36).padStart(9, '0') + random;
}
