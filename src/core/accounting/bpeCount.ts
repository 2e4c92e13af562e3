/**
 * Number of tokens byte-pair encoding gives a piece: repeatedly merge the adjacent pair with the
 * lowest rank, leftmost first (tiktoken's rule), counting parts instead of building token ids.
 *
 * Short pieces use a plain scan. Long ones (a minified line, a run of one letter, CJK text with no
 * punctuation: one pre-tokenizer piece can be megabytes) would make that scan quadratic, so they
 * go through a heap over a linked list of parts, O(n log n), written as a generator that pauses
 * every few thousand steps so an async caller can give the event loop a turn.
 */
import { NO_RANK, type RankTable } from './rankTable';

// A module-level copy: run from source (tests, benchmarks), each use of an imported binding is a
// getter call, several per merge step in code the JIT has not optimized yet.
const NONE = NO_RANK;

const SHORT_PIECE_BYTES = 128;
/** Work units (map look-ups or merges) between pauses of the long-piece generator. */
export const BPE_STEPS_PER_PAUSE = 20_000;

export function bpeCount(bytes: Uint8Array, ranks: RankTable): number {
  if (bytes.length <= SHORT_PIECE_BYTES) return bpeCountShort(bytes, ranks);
  const steps = bpeCountLong(bytes, ranks);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** The same count, pausing (yielding undefined) between slices of work. */
export function* bpeCountSteps(bytes: Uint8Array, ranks: RankTable): Generator<void, number> {
  if (bytes.length <= SHORT_PIECE_BYTES) return bpeCountShort(bytes, ranks);
  return yield* bpeCountLong(bytes, ranks);
}

// Scratch space for the plain scan, reused by every call (the scan never pauses, so never overlaps).
const shortStarts = new Int32Array(SHORT_PIECE_BYTES + 1);
const shortPairRanks = new Int32Array(SHORT_PIECE_BYTES);

/** The plain scan: quadratic in the piece's length, fastest for short pieces. Exported for the benchmark. */
export function bpeCountShort(bytes: Uint8Array, ranks: RankTable): number {
  const n = bytes.length;
  if (n <= 1) return n;
  if (ranks.rankOf(bytes, 0, n) !== NONE) return 1;
  // parts[i] starts at starts[i]; pairRanks[i] is the rank of parts i and i + 1 merged.
  const starts = n <= SHORT_PIECE_BYTES ? shortStarts : new Int32Array(n + 1);
  const pairRanks = n <= SHORT_PIECE_BYTES ? shortPairRanks : new Int32Array(n);
  for (let i = 0; i <= n; i++) starts[i] = i;
  for (let i = 0; i < n - 1; i++) pairRanks[i] = ranks.rankOf(bytes, i, i + 2);
  let parts = n;
  while (parts > 1) {
    let best = NONE;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      if (pairRanks[i] < best) {
        best = pairRanks[i];
        at = i;
      }
    }
    if (at < 0) break;
    // Merge part at+1 into part at: drop starts[at + 1] and pairRanks[at].
    starts.copyWithin(at + 1, at + 2, parts + 1);
    pairRanks.copyWithin(at, at + 1, parts - 1);
    parts--;
    if (at < parts - 1) pairRanks[at] = ranks.rankOf(bytes, starts[at], starts[at + 2]);
    if (at > 0) pairRanks[at - 1] = ranks.rankOf(bytes, starts[at - 1], starts[at + 1]);
  }
  return parts;
}

/** A binary min-heap of numbers in a growable Float64Array. */
class NumberHeap {
  private data: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.data = new Float64Array(Math.max(16, capacity));
  }
  push(value: number): void {
    if (this.size === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    let i = this.size++;
    const d = this.data;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (d[parent] <= value) break;
      d[i] = d[parent];
      i = parent;
    }
    d[i] = value;
  }
  pop(): number {
    const d = this.data;
    const top = d[0];
    const last = d[--this.size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && d[child + 1] < d[child]) child++;
      if (d[child] >= last) break;
      d[i] = d[child];
      i = child;
    }
    d[i] = last;
    return top;
  }
}

// A heap entry packs (rank, start) into one float: rank × 2^32 + start. Ranks stay below 2^21
// and starts below 2^32, so the product is exact, and ordering by it is "lowest rank, leftmost".
const POSITION_SPAN = 2 ** 32;

function* bpeCountLong(bytes: Uint8Array, ranks: RankTable): Generator<void, number> {
  yield; // the caller may have done a lot already (matching and encoding a huge piece)
  const n = bytes.length;
  // Parts are identified by their first byte's offset; next[s] is where the following part starts.
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const pairRank = new Int32Array(n); // rank of (part at s, following part); NONE if none
  // At most n initial pairs and two new ones per merge (n − 1 merges at most): never regrows.
  const heap = new NumberHeap(3 * n);
  let work = 0;
  for (let s = 0; s < n; s++) {
    next[s] = s + 1;
    prev[s] = s - 1;
    const rank = s + 2 <= n ? ranks.rankOf(bytes, s, s + 2) : NONE;
    pairRank[s] = rank;
    if (rank !== NONE) heap.push(rank * POSITION_SPAN + s);
    if (++work % BPE_STEPS_PER_PAUSE === 0) yield;
  }
  const rankAt = (s: number): number => {
    const following = next[s];
    if (following >= n) return NONE;
    return ranks.rankOf(bytes, s, next[following]);
  };
  let parts = n;
  while (heap.size > 0) {
    if (++work % BPE_STEPS_PER_PAUSE === 0) yield;
    const entry = heap.pop();
    const rank = Math.floor(entry / POSITION_SPAN) | 0;
    const s = (entry - rank * POSITION_SPAN) | 0; // small integers from here on, as the look-ups expect
    if (pairRank[s] !== rank) continue; // stale: the pair changed since this entry was pushed
    // Merge the part at s with the one after it.
    const absorbed = next[s];
    next[s] = next[absorbed];
    if (next[s] < n) prev[next[s]] = s;
    pairRank[absorbed] = NONE;
    parts--;
    pairRank[s] = rankAt(s);
    if (pairRank[s] !== NONE) heap.push(pairRank[s] * POSITION_SPAN + s);
    const before = prev[s];
    if (before >= 0) {
      pairRank[before] = rankAt(before);
      if (pairRank[before] !== NONE) heap.push(pairRank[before] * POSITION_SPAN + before);
    }
  }
  return parts;
}
