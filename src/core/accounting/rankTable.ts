/**
 * An encoding's ranks as an open-addressing hash table over typed arrays, keyed by the token's
 * bytes: a look-up hashes a byte range and compares bytes, with no string built. Building it from
 * a rank file is a linear pass (a few milliseconds), paused every few thousand tokens so an async
 * caller can give the event loop a turn.
 */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** Returned for byte sequences that are not a token; above every real rank, and a small integer. */
export const NO_RANK = 2 ** 30 - 1;

const TOKENS_PER_PAUSE = 50_000;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 16777619;

export class RankTable {
  constructor(
    /** The rank file's records; token t occupies bytes[starts[t] .. ends[t]). */
    private readonly bytes: Uint8Array,
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
    private readonly ranks: Int32Array,
    /** Token index per slot, −1 for empty. */
    private readonly slots: Int32Array,
    readonly size: number,
  ) {}

  /** Rank of the byte sequence bytes[from .. to), or NO_RANK if it is not a token. */
  rankOf(bytes: Uint8Array, from: number, to: number): number {
    let h = FNV_OFFSET;
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
    const mask = this.slots.length - 1;
    const length = to - from;
    const own = this.bytes;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const token = this.slots[slot];
      if (token < 0) return NO_RANK;
      const start = this.starts[token];
      if (this.ends[token] - start !== length) continue;
      let i = 0;
      while (i < length && own[start + i] === bytes[from + i]) i++;
      if (i === length) return this.ranks[token];
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
  const pattern = Buffer.from(file.buffer, file.byteOffset + 8, patternLength).toString('utf8');
  let at = 8 + patternLength;
  const count = view.getUint32(at, true);
  at += 4;
  const lengthsSize = view.getUint32(at, true);
  at += 4;
  const lengths = file.subarray(at, at + lengthsSize);
  const bytes = file.subarray(at + lengthsSize); // token bytes are read in place
  const starts = new Int32Array(count);
  const ends = new Int32Array(count);
  const ranks = new Int32Array(count);
  let capacity = 1;
  while (capacity < count * 2) capacity *= 2;
  const slots = new Int32Array(capacity).fill(-1);
  const mask = capacity - 1;
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
    starts[t] = pos;
    ends[t] = pos + length;
    ranks[t] = rank++;
    pos += length;
    if (t % TOKENS_PER_PAUSE === TOKENS_PER_PAUSE - 1) yield;
  }
  for (let t = 0; t < count; t++) {
    const from = starts[t];
    const to = ends[t];
    let h = FNV_OFFSET;
    for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const other = slots[slot];
      if (other < 0) {
        slots[slot] = t;
        size++;
        break;
      }
      if (sameBytes(bytes, starts[other], ends[other], from, to)) {
        slots[slot] = t; // the later duplicate wins
        break;
      }
    }
    if (t % TOKENS_PER_PAUSE === TOKENS_PER_PAUSE - 1) yield;
  }
  return { table: new RankTable(bytes, starts, ends, ranks, slots, size), pattern };
}

function sameBytes(bytes: Uint8Array, aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i++) if (bytes[aFrom + i] !== bytes[bFrom + i]) return false;
  return true;
}
