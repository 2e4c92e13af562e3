import { nextTurn } from '../nextTurn';
import { bpeCount, bpeCountSteps } from './bpeCount';
import { loadRanksAsync, loadRanksSync, type EncodingName, type LoadedRanks } from './rankLoader';
import type { RankTable } from './rankTable';
import { utf8Into } from './utf8';

export type { EncodingName };

export interface TokenCounter {
  readonly encoding: EncodingName;
  /** Exact count of `text` as plain text (special-token strings count as text, never throw). */
  count(text: string): number;
  /** Same count, yielding to the event loop between slices so large inputs never block the thread. */
  countAsync(text: string): Promise<number>;
  isLoaded(): boolean;
  /** Loads the encoder's ranks now (they otherwise load on the first count). */
  load(): Promise<void>;
}

const MAX_CACHED_PIECE = 64;
const MAX_CACHE_ENTRIES = 200_000;
const SLICE_CHARS = 64 * 1024;

/**
 * Counting over the encoding's ranks (the same as js-tiktoken's): the text is split with the encoding's own pre-tokenizer
 * pattern and each piece's BPE count is cached. Pieces repeat heavily in code and logs, so most
 * pieces cost a map lookup. The ranks load on the first count, or earlier and without blocking
 * through load(); never at import.
 */
class CachedCounter implements TokenCounter {
  private ranks?: LoadedRanks;
  private pattern?: RegExp;
  /** The same pattern, sticky: matches only where the previous piece ended, with no match array built. */
  private sticky?: RegExp;
  private loading?: Promise<void>;
  private readonly cache = new Map<string, number>();
  /** A piece's UTF-8 bytes for a synchronous count; grows to the longest piece seen. */
  private scratch = new Uint8Array(1024);

  private bytesOf(piece: string): Uint8Array {
    if (piece.length * 3 > this.scratch.length) this.scratch = new Uint8Array(piece.length * 3);
    return this.scratch.subarray(0, utf8Into(piece, this.scratch));
  }

  constructor(readonly encoding: EncodingName) {}

  isLoaded(): boolean {
    return this.ranks !== undefined;
  }

  load(): Promise<void> {
    if (this.ranks) return Promise.resolve();
    this.loading ??= loadRanksAsync(this.encoding).then((ranks) => {
      if (!this.ranks) this.use(ranks);
    });
    return this.loading;
  }

  private use(ranks: LoadedRanks): void {
    this.ranks = ranks;
    this.pattern = new RegExp(ranks.pattern, 'gu');
    this.sticky = new RegExp(ranks.pattern, 'uy');
  }

  private ensure(): RankTable {
    if (!this.ranks) this.use(loadRanksSync(this.encoding));
    return this.ranks!.table;
  }

  private countPiece(table: RankTable, piece: string): number {
    const cached = this.cache.get(piece);
    if (cached !== undefined) return cached;
    const n = bpeCount(this.bytesOf(piece), table);
    if (piece.length <= MAX_CACHED_PIECE) {
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
      this.cache.set(piece, n);
    }
    return n;
  }

  count(text: string): number {
    if (!text) return 0;
    const table = this.ensure();
    // Pieces follow one another, so each is found with a sticky test where the last one ended and
    // cut out with slice: no match object per piece (most of the garbage of a first count). If no
    // piece starts there, the search moves on the way matchAll does, so the pieces are the same.
    const sticky = this.sticky!;
    const pattern = this.pattern!;
    let total = 0;
    let at = 0;
    while (at < text.length) {
      sticky.lastIndex = at;
      if (sticky.test(text) && sticky.lastIndex > at) {
        total += this.countPiece(table, text.slice(at, sticky.lastIndex));
        at = sticky.lastIndex;
        continue;
      }
      pattern.lastIndex = at;
      const match = pattern.exec(text);
      if (!match) break;
      if (match[0].length) total += this.countPiece(table, match[0]);
      at = match[0].length ? pattern.lastIndex : match.index + (text.codePointAt(match.index)! > 0xffff ? 2 : 1);
    }
    return total;
  }

  async countAsync(text: string): Promise<number> {
    if (text.length <= SLICE_CHARS) return this.count(text);
    await this.load();
    const table = this.ensure();
    // Its own regex object: the shared one may be in use by a synchronous count meanwhile. Walking
    // the matches with exec gives exactly the pieces matchAll gives, so the total is exact.
    const pattern = new RegExp(this.pattern!.source, this.pattern!.flags);
    let total = 0;
    let sinceYield = 0;
    for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
      const piece = match[0];
      if (piece.length <= MAX_CACHED_PIECE) total += this.countPiece(table, piece);
      else {
        // A long piece is counted in steps, with a turn for the event loop between them. Its bytes
        // are its own (a synchronous count may reuse the scratch buffer meanwhile), in a plain
        // Uint8Array like the scratch one, so the look-ups only ever see one kind of array.
        const bytes = new Uint8Array(piece.length * 3);
        const steps = bpeCountSteps(bytes.subarray(0, utf8Into(piece, bytes)), table);
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) {
            total += step.value;
            break;
          }
          await nextTurn();
        }
      }
      sinceYield += piece.length;
      if (sinceYield >= SLICE_CHARS) {
        sinceYield = 0;
        await nextTurn();
      }
    }
    return total;
  }
}

const counters = new Map<EncodingName, TokenCounter>();

/** The process-wide counter for an encoding; cheap to call, loads nothing until it counts. */
export function getTokenCounter(encoding: EncodingName = 'o200k_base'): TokenCounter {
  let counter = counters.get(encoding);
  if (!counter) {
    counter = new CachedCounter(encoding);
    counters.set(encoding, counter);
  }
  return counter;
}
