/**
 * An encoding's ranks as an open-addressing hash table over typed arrays, keyed by the token's
 * bytes: a look-up hashes a byte range and compares bytes, with no string built. Building it from
 * a rank file is a linear pass (a few milliseconds), paused every few thousand tokens so an async
 * caller can give the event loop a turn.
 *
 * Most look-ups during BPE are misses (a pair of parts that is no token), and the table is larger
 * than the CPU caches, so each memory access counts. A slot therefore holds the token's index and a
 * few more bits of its hash: a probe that meets another token is rejected from the slot alone,
 * without reading that token's record. A token's record (start, length, rank) is one run of three
 * integers, so a hit reads one more place besides the bytes it compares. Two-byte sequences, the
 * first look-up for every adjacent pair of a piece, are answered from a direct 64K-entry array.
 */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Returned for byte sequences that are not a token; above every real rank, and a small integer. */
export const NO_RANK = 2 ** 30 - 1;

const TOKENS_PER_PAUSE = 50_000;
const FNV_OFFSET = 0x811c9dc5 | 0; // as a signed 32-bit integer, so the hash stays a small integer throughout
const FNV_PRIME = 16777619;

/** FNV-1a over bytes[from .. to), then mixed so that the high bits (the tag) depend on every byte too. */
function hashOf(bytes: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

export class RankTable {
  private readonly mask: number;
  private readonly tagShift: number;
  private readonly tokenMask: number;

  constructor(
    /** The rank file's token bytes; token t's record is records[3t .. 3t + 3) = start, length, rank. */
    private readonly bytes: Uint8Array,
    private readonly records: Int32Array,
    /** Per slot: 0 for empty, else (hash tag << tokenBits) | (token index + 1), as 32 bits. */
    private readonly slots: Int32Array,
    /** Rank of each two-byte sequence, indexed by (first byte << 8) | second byte. */
    private readonly pairs: Int32Array,
    tokenBits: number,
    readonly size: number,
  ) {
    this.mask = slots.length - 1;
    this.tagShift = tokenBits;
    this.tokenMask = 2 ** tokenBits - 1;
  }

  /** Rank of the two bytes `first`, `second`, or NO_RANK if they are not a token. */
  pairRank(first: number, second: number): number {
    return this.pairs[(first << 8) | second];
  }

  /** Rank of the byte sequence bytes[from .. to), or NO_RANK if it is not a token. */
  rankOf(bytes: Uint8Array, from: number, to: number): number {
    if (to - from === 2) return this.pairs[(bytes[from] << 8) | bytes[from + 1]];
    const h = hashOf(bytes, from, to);
    const tag = h >>> this.tagShift;
    const length = to - from;
    const own = this.bytes;
    const records = this.records;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot];
      if (entry === 0) return NO_RANK;
      if (entry >>> this.tagShift !== tag) continue;
      const at = ((entry & this.tokenMask) - 1) * 3;
      if (records[at + 1] !== length) continue;
      const start = records[at];
      let i = 0;
      while (i < length && own[start + i] === bytes[from + i]) i++;
      if (i === length) return records[at + 2];
    }
  }
}

export interface LoadedRanks {
  table: RankTable;
  /** The encoding's pre-tokenizer pattern (the regex that splits text into pieces). */
  pattern: string;
}

/** Reads a rank file (see rankFile.ts) into a table; a later duplicate of a token wins, as in js-tiktoken. */
export function* buildRankTable(file: Uint8Array): Generator<void, LoadedRanks> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (String.fromCharCode(file[0], file[1], file[2], file[3]) !== 'TKR1') throw new Error('not a Tally rank file (bad header)');
  const patternLength = view.getUint32(4, true);
  const pattern = new TextDecoder('utf-8').decode(file.subarray(8, 8 + patternLength));
  let at = 8 + patternLength;
  const count = view.getUint32(at, true);
  at += 4;
  const lengthsSize = view.getUint32(at, true);
  at += 4;
  const lengths = file.subarray(at, at + lengthsSize);
  // Token bytes are read in place, through a plain Uint8Array (as the pieces looked up are), so
  // the look-up code sees one kind of array even when the file came as a Node Buffer.
  const bytes = new Uint8Array(file.buffer, file.byteOffset + at + lengthsSize, file.byteLength - at - lengthsSize);
  const records = new Int32Array(count * 3);
  let capacity = 1;
  while (capacity < count * 2) capacity *= 2;
  const slots = new Int32Array(capacity);
  const mask = capacity - 1;
  const pairs = new Int32Array(1 << 16).fill(NO_RANK);
  let tokenBits = 1;
  while (2 ** tokenBits - 1 < count) tokenBits++;
  const tokenMask = 2 ** tokenBits - 1;
  let rank = 0;
  let pos = 0;
  let next = 0;
  let size = 0;
  for (let t = 0; t < count; t++) {
    let length = lengths[next++];
    if (length === 0) {
      rank = view.getUint32(at + next, true);
      next += 4;
      length = lengths[next++];
    }
    if (length === undefined || pos + length > bytes.length) throw new Error('truncated Tally rank file');
    records[3 * t] = pos;
    records[3 * t + 1] = length;
    if (length === 2) pairs[(bytes[pos] << 8) | bytes[pos + 1]] = rank; // a later duplicate wins
    records[3 * t + 2] = rank++;
    pos += length;
    if (t % TOKENS_PER_PAUSE === TOKENS_PER_PAUSE - 1) yield;
  }
  for (let t = 0; t < count; t++) {
    const from = records[3 * t];
    const to = from + records[3 * t + 1];
    const h = hashOf(bytes, from, to);
    const entry = ((h >>> tokenBits) << tokenBits) | (t + 1);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const other = slots[slot];
      if (other === 0) {
        slots[slot] = entry;
        size++;
        break;
      }
      const o = 3 * ((other & tokenMask) - 1);
      if (sameBytes(bytes, records[o], records[o] + records[o + 1], from, to)) {
        slots[slot] = entry; // the later duplicate wins
        break;
      }
    }
    if (t % TOKENS_PER_PAUSE === TOKENS_PER_PAUSE - 1) yield;
  }
  return { table: new RankTable(bytes, records, slots, pairs, tokenBits, size), pattern };
}

function sameBytes(bytes: Uint8Array, aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i++) if (bytes[aFrom + i] !== bytes[bFrom + i]) return false;
  return true;
}
