import { nextTurn } from '../nextTurn';
import { bpeCount, bpeCountSteps } from './bpeCount';
import { loadRanksAsync, loadRanksSync, type EncodingName, type LoadedRanks } from './rankLoader';
import { NO_RANK, type RankTable } from './rankTable';
import { PieceCountCache } from './pieceCountCache';
import { hasAsciiMatcher } from './asciiPieceScan';
import { PieceSplitter } from './pieceSplitter';
import { utf8RangeInto } from './utf8';

export type { EncodingName };

export interface TokenCounter {
  readonly encoding: EncodingName;
  /** Exact count of `text` as plain text (special-token strings count as text, never throw). */
  count(text: string): number;
  /** Same count, yielding to the event loop between slices so large inputs never block the thread. */
  countAsync(text: string): Promise<number>;
  /** Loads the encoder's ranks now (they otherwise load on the first count). */
  load(): Promise<void>;
}

const MAX_CACHED_PIECE = 64;
const NONE = NO_RANK; // a module-level copy: from source, each use of an import is a getter call
const MAX_CACHE_ENTRIES = 200_000;
const SLICE_CHARS = 64 * 1024;
const MAX_CARRIED_PIECES = 50_000;

/**
 * How many pieces a counter splits with the RegExp before it moves to the hand-written matcher
 * (about 4.5 MB of agent text). The RegExp, slice and Map are the engine's own compiled code, fast
 * from the first call; the matcher and the range-keyed cache are JavaScript, slower than them
 * until V8 has optimized them (1.5× slower over the first 50-150 KB of code, CJK or emoji) and
 * about 1.5× faster after. Moving over costs that warm-up once, and the new cache refills, so it
 * pays in a process that counts a lot: a replay, a long session.
 */
const REGEXP_PIECES_BEFORE_MATCHER = 1 << 20;

/** Count of a piece of one or two ASCII chars, read from the ranks directly; 0 for any other piece. */
function asciiCount(table: RankTable, text: string, from: number, to: number): number {
  const first = text.charCodeAt(from);
  if (first >= 0x80) return 0;
  if (to - from === 1) return 1; // every byte is a token
  if (to - from !== 2) return 0;
  const second = text.charCodeAt(from + 1);
  if (second >= 0x80) return 0;
  return table.pairRank(first, second) === NONE ? 2 : 1;
}

/**
 * Counting over the encoding's ranks (the same as js-tiktoken's): the text is split with the
 * encoding's own pre-tokenizer pattern and each piece's BPE count is cached; pieces repeat heavily
 * in code and logs, so most pieces cost a look-up. Splitting is done first with the pattern's
 * RegExp, then (see REGEXP_PIECES_BEFORE_MATCHER) by a hand-written matcher for ASCII that looks
 * pieces up from their range of the text, with no string built. The ranks load on the first count,
 * or earlier and without blocking through load(); never at import.
 */
class CachedCounter implements TokenCounter {
  private ranks?: LoadedRanks;
  /** Splits with the pattern's RegExp only, for the first pieces (see REGEXP_PIECES_BEFORE_MATCHER). */
  private regExpSplitter?: PieceSplitter;
  private splitter?: PieceSplitter;
  private loading?: Promise<void>;
  /** Counts of the pieces met while splitting with the RegExp, by piece. */
  private byPiece = new Map<string, number>();
  /** Counts of the pieces met while splitting with the matcher, looked up by range. */
  private readonly byRange = new PieceCountCache(MAX_CACHE_ENTRIES);
  private regExpPiecesLeft: number;
  /** A piece's UTF-8 bytes for a synchronous count; grows to the longest piece seen. */
  private scratch = new Uint8Array(1024);

  constructor(
    readonly encoding: EncodingName,
    regExpPieces = REGEXP_PIECES_BEFORE_MATCHER,
  ) {
    this.regExpPiecesLeft = regExpPieces;
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
    this.regExpSplitter = new PieceSplitter(ranks.pattern, { asciiMatcher: false });
    if (!hasAsciiMatcher(ranks.pattern)) this.regExpPiecesLeft = Infinity; // no matcher: the RegExp does it all
  }

  private ensure(): RankTable {
    if (!this.ranks) this.use(loadRanksSync(this.encoding));
    return this.ranks!.table;
  }

  private bytesOf(text: string, from: number, to: number): Uint8Array {
    if ((to - from) * 3 > this.scratch.length) this.scratch = new Uint8Array((to - from) * 3);
    return this.scratch.subarray(0, utf8RangeInto(text, from, to, this.scratch));
  }

  count(text: string): number {
    if (!text) return 0;
    const table = this.ensure();
    if (this.regExpPiecesLeft > 0) return this.countByRegExp(table, text);
    return this.countByMatcher(table, text);
  }

  private countByRegExp(table: RankTable, text: string): number {
    // Each piece is found with a sticky test where the last one ended and cut out with slice: no
    // match object per piece (see PieceSplitter).
    const splitter = this.regExpSplitter!;
    let total = 0;
    let pieces = 0;
    for (let at = 0; at < text.length; ) {
      const next = splitter.byRegExp(text, at);
      if (next < 0) break;
      const { start, end } = splitter;
      if (end > start) {
        const ascii = asciiCount(table, text, start, end);
        total += ascii > 0 ? ascii : this.countPiece(table, text.slice(start, end));
        pieces++;
      }
      at = next;
    }
    this.regExpPiecesLeft -= pieces;
    if (this.regExpPiecesLeft <= 0) this.moveToMatcher();
    return total;
  }

  /**
   * The matcher's cache starts with (at most MAX_CARRIED_PIECES of) what the Map holds, the pieces
   * met first, so those are not counted again; the cap bounds this one-time pass to a few ms.
   */
  private moveToMatcher(): void {
    let carried = 0;
    for (const [piece, n] of this.byPiece) {
      if (carried++ >= MAX_CARRIED_PIECES) break;
      if (this.byRange.get(piece, 0, piece.length) < 0) this.byRange.set(piece, 0, piece.length, n);
    }
    this.byPiece = new Map();
  }

  private countPiece(table: RankTable, piece: string): number {
    const cached = this.byPiece.get(piece);
    if (cached !== undefined) return cached;
    const n = bpeCount(this.bytesOf(piece, 0, piece.length), table);
    if (piece.length <= MAX_CACHED_PIECE) {
      if (this.byPiece.size >= MAX_CACHE_ENTRIES) this.byPiece.clear();
      this.byPiece.set(piece, n);
    }
    return n;
  }

  private countByMatcher(table: RankTable, text: string): number {
    const splitter = (this.splitter ??= new PieceSplitter(this.ranks!.pattern));
    let total = 0;
    for (let at = 0; at < text.length; ) {
      at = splitter.next(text, at);
      if (at < 0) break;
      if (splitter.end > splitter.start) total += this.countRange(table, text, splitter.start, splitter.end);
    }
    return total;
  }

  /** Count of the piece text[from .. to). */
  private countRange(table: RankTable, text: string, from: number, to: number): number {
    const ascii = asciiCount(table, text, from, to);
    if (ascii > 0) return ascii;
    if (to - from <= MAX_CACHED_PIECE) {
      const cached = this.byRange.get(text, from, to);
      if (cached >= 0) return cached;
    }
    return this.countNewRange(table, text, from, to);
  }

  /** A piece not in the cache: counted, and cached if short. */
  private countNewRange(table: RankTable, text: string, from: number, to: number): number {
    const n = bpeCount(this.bytesOf(text, from, to), table);
    if (to - from <= MAX_CACHED_PIECE) this.byRange.set(text, from, to, n);
    return n;
  }

  async countAsync(text: string): Promise<number> {
    if (text.length <= SLICE_CHARS) return this.count(text);
    await this.load();
    const table = this.ensure();
    // Its own splitter: the shared one may be in use by a synchronous count meanwhile.
    const splitter = new PieceSplitter(this.ranks!.pattern);
    let total = 0;
    let sinceYield = 0;
    for (let at = 0; at < text.length; ) {
      at = splitter.next(text, at);
      if (at < 0) break;
      const { start, end } = splitter;
      if (end - start <= MAX_CACHED_PIECE) total += this.countRange(table, text, start, end);
      else {
        // A long piece is counted in steps, with a turn for the event loop between them. Its bytes
        // are its own (a synchronous count may reuse the scratch buffer meanwhile), in a plain
        // Uint8Array like the scratch one, so the look-ups only ever see one kind of array.
        const bytes = new Uint8Array((end - start) * 3);
        const steps = bpeCountSteps(bytes.subarray(0, utf8RangeInto(text, start, end, bytes)), table);
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) {
            total += step.value;
            break;
          }
          await nextTurn();
        }
      }
      sinceYield += end - start;
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

/** A counter of its own, not the process-wide one; `regExpPieces` as REGEXP_PIECES_BEFORE_MATCHER (tests use 0 to count with the matcher from the start). */
export function createTokenCounter(encoding: EncodingName, regExpPieces = REGEXP_PIECES_BEFORE_MATCHER): TokenCounter {
  return new CachedCounter(encoding, regExpPieces);
}
