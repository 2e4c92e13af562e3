/**
 * Token counts of pieces already counted, keyed by the piece's UTF-16 code units and looked up
 * straight from a range of the text: no string is sliced or hashed by the engine for a look-up.
 * An open-addressing table over typed arrays; the keys' code units sit one after another in a pool.
 * When it holds `maxEntries` pieces it starts over empty (pieces repeat heavily, so it refills fast).
 */
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 16777619;
const INITIAL_SLOTS = 4096;

export class PieceCountCache {
  /** Four integers per slot: hash, where the key starts in `keys`, its length (0: empty slot), count. */
  private slots = new Int32Array(INITIAL_SLOTS * 4);
  private mask = INITIAL_SLOTS - 1;
  private keys = new Uint16Array(INITIAL_SLOTS * 8);
  private keysUsed = 0;
  /** The hash of the piece the last get looked up, for the set that follows a miss. */
  private lastHash = 0;
  size = 0;

  constructor(private readonly maxEntries: number) {}

  /** The count stored for text[from .. to), or -1. */
  get(text: string, from: number, to: number): number {
    let h = FNV_OFFSET;
    for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
    const hash = h ^ (h >>> 15);
    this.lastHash = hash;
    const slots = this.slots;
    const keys = this.keys;
    const mask = this.mask;
    const length = to - from;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const b = s << 2;
      const stored = slots[b + 2];
      if (stored === 0) return -1;
      if (stored === length && slots[b] === hash) {
        let k = slots[b + 1];
        let i = from;
        while (i < to && keys[k] === text.charCodeAt(i)) {
          i++;
          k++;
        }
        if (i === to) return slots[b + 3];
      }
    }
  }

  /** Stores a count for text[from .. to) (not empty): the piece the last get did not find. */
  set(text: string, from: number, to: number, count: number): void {
    const hash = this.lastHash;
    if (this.size >= this.maxEntries) this.clear();
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    const length = to - from;
    if (this.keysUsed + length > this.keys.length) {
      const bigger = new Uint16Array(Math.max(this.keys.length * 2, this.keysUsed + length));
      bigger.set(this.keys.subarray(0, this.keysUsed));
      this.keys = bigger;
    }
    const keys = this.keys;
    const start = this.keysUsed;
    for (let i = from; i < to; i++) keys[start + i - from] = text.charCodeAt(i);
    this.keysUsed += length;
    this.place(hash, start, length, count);
    this.size++;
  }

  clear(): void {
    this.slots.fill(0);
    this.keysUsed = 0;
    this.size = 0;
  }

  private place(hash: number, start: number, length: number, count: number): void {
    const slots = this.slots;
    const mask = this.mask;
    let s = hash & mask;
    while (slots[(s << 2) + 2] !== 0) s = (s + 1) & mask;
    const b = s << 2;
    slots[b] = hash;
    slots[b + 1] = start;
    slots[b + 2] = length;
    slots[b + 3] = count;
  }

  private grow(): void {
    const old = this.slots;
    const capacity = (this.mask + 1) * 2;
    this.slots = new Int32Array(capacity * 4);
    this.mask = capacity - 1;
    for (let b = 0; b < old.length; b += 4) if (old[b + 2] !== 0) this.place(old[b], old[b + 1], old[b + 2], old[b + 3]);
  }
}
