const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Random bytes drawn 3 KiB at a time: one call per 512 ids instead of one per id. */
const POOL_BYTES = 6 * 512;
let pool = new Uint8Array(0);
let used = 0;

function randomBytes(n: number): Uint8Array {
  if (used + n > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    used = 0;
  }
  const bytes = pool.subarray(used, used + n);
  used += n;
  return bytes;
}

/** A sortable unique id: millisecond time prefix plus 48 random bits. */
export function newId(prefix = ''): string {
  let random = '';
  for (const b of randomBytes(6)) random += HEX[b];
  return prefix + Date.now().toString(36).padStart(9, '0') + random;
}

/**
 * A stored result's id ("r" and 28 digits: the millisecond time, then 48 random bits in decimal).
 * The model reads it in every stored result's text, so it is counted: tokenizers cut digits into
 * runs of three whatever they are, so every id costs the same tokens and a run's figures do not
 * change with the ids drawn (a hex or base-36 id tokenizes differently from one draw to the next).
 */
export function newRefId(): string {
  let random = 0;
  for (const b of randomBytes(6)) random = random * 256 + b;
  return `r${String(Date.now()).padStart(13, '0')}${String(random).padStart(15, '0')}`;
}
