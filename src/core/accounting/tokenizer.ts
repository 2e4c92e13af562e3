import { TextEncoder } from 'util';
import type { Tiktoken } from 'js-tiktoken/lite';

export type EncodingName = 'o200k_base' | 'cl100k_base';

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

interface Ranks {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

const MAX_CACHED_PIECE = 64;
const MAX_CACHE_ENTRIES = 200_000;
const SLICE_CHARS = 64 * 1024;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Counting over js-tiktoken's ranks: the text is split with the encoding's own pre-tokenizer
 * pattern and each piece's BPE count is cached. Pieces repeat heavily in code and logs, so most
 * pieces cost a map lookup. The ranks (≈1 s to load) load on the first count, never at import.
 */
class CachedCounter implements TokenCounter {
  private encoder?: Tiktoken;
  private pattern?: RegExp;
  private readonly cache = new Map<string, number>();
  private readonly utf8 = new TextEncoder();

  private bytesOf(piece: string): Uint8Array {
    return this.utf8.encode(piece);
  }

  constructor(readonly encoding: EncodingName) {}

  isLoaded(): boolean {
    return this.encoder !== undefined;
  }

  async load(): Promise<void> {
    this.ensure();
  }

  private ensure(): Tiktoken {
    if (this.encoder) return this.encoder;
    // Required here, not at the top, so activation never pays for the ranks.
    const module = this.encoding === 'cl100k_base' ? require('js-tiktoken/ranks/cl100k_base') : require('js-tiktoken/ranks/o200k_base');
    const ranks: Ranks = module.default ?? module;
    const { Tiktoken: Encoder } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    this.encoder = new Encoder(ranks);
    this.pattern = new RegExp(ranks.pat_str, 'gu');
    return this.encoder;
  }

  private countPiece(encoder: Tiktoken, piece: string): number {
    const cached = this.cache.get(piece);
    if (cached !== undefined) return cached;
    const n = bpeCount(this.bytesOf(piece), (encoder as unknown as { rankMap: Map<string, number> }).rankMap);
    if (piece.length <= MAX_CACHED_PIECE) {
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
      this.cache.set(piece, n);
    }
    return n;
  }

  count(text: string): number {
    if (!text) return 0;
    const encoder = this.ensure();
    const pattern = this.pattern!;
    pattern.lastIndex = 0;
    let total = 0;
    for (const match of text.matchAll(pattern)) total += this.countPiece(encoder, match[0]);
    return total;
  }

  async countAsync(text: string): Promise<number> {
    if (text.length <= SLICE_CHARS) return this.count(text);
    let total = 0;
    let start = 0;
    while (start < text.length) {
      // Cut right after a newline that is followed by a letter or digit: no pre-tokenizer piece
      // spans such a point, so the slices' counts add up exactly.
      let end = Math.min(text.length, start + SLICE_CHARS);
      if (end < text.length) {
        end = safeCut(text, start, end);
      }
      total += this.count(text.slice(start, end));
      start = end;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return total;
  }
}

function isSafeCut(text: string, at: number): boolean {
  return text.charCodeAt(at - 1) === 10 && LETTER_OR_DIGIT.test(text[at]);
}

/** A slice end near `end` where no pre-tokenizer piece spans; the rest of the text if none. */
function safeCut(text: string, start: number, end: number): number {
  for (let cut = end; cut > start; cut--) if (isSafeCut(text, cut)) return cut;
  for (let cut = end + 1; cut < text.length; cut++) if (isSafeCut(text, cut)) return cut;
  return text.length;
}

/**
 * Number of tokens byte-pair encoding gives `bytes`: repeatedly merge the adjacent pair with the
 * lowest rank (the same rule as tiktoken), counting parts instead of building token ids.
 */
function bpeCount(bytes: Uint8Array, ranks: Map<string, number>): number {
  if (bytes.length <= 1) return bytes.length;
  const whole = bytes.join(',');
  if (ranks.has(whole)) return 1;
  const starts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) starts.push(i);
  const rankOf = (i: number): number => {
    if (i + 2 >= starts.length) return Infinity;
    return ranks.get(bytes.subarray(starts[i], starts[i + 2]).join(',')) ?? Infinity;
  };
  const pairRanks: number[] = [];
  for (let i = 0; i < starts.length - 2; i++) pairRanks.push(rankOf(i));
  while (starts.length > 2) {
    let best = Infinity;
    let at = -1;
    for (let i = 0; i < pairRanks.length; i++) {
      if (pairRanks[i] < best) {
        best = pairRanks[i];
        at = i;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    pairRanks.splice(at, 1);
    if (at < pairRanks.length) pairRanks[at] = rankOf(at);
    if (at > 0) pairRanks[at - 1] = rankOf(at - 1);
  }
  return starts.length - 1;
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
