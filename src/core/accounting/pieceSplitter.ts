import { asciiMatcherFor, type PieceEndFinder } from './asciiPieceScan';

/**
 * Splits text into the pieces of an encoding's pre-tokenizer pattern, one piece per call, giving
 * exactly the pieces `text.matchAll(new RegExp(pattern, 'gu'))` gives. ASCII pieces are found by a
 * hand-written matcher; the RegExp (sticky, so it only tests where the last piece ended) finds the
 * others. Nothing is sliced: a piece is a range of the text. Each splitter has its own RegExp
 * objects, so an asynchronous count can hold one while synchronous counts use another.
 */
export class PieceSplitter {
  /** Held here, not called through the import: from source, each call through an import is a getter call. */
  private readonly scan: PieceEndFinder;
  private readonly sticky: RegExp;
  private readonly global: RegExp;
  /** The last piece found: text[start .. end). Empty only if the pattern matched nothing there. */
  start = 0;
  end = 0;
  /** Whether a hand-written matcher serves this pattern's ASCII text. */
  readonly scansAscii: boolean;

  /** `asciiMatcher: false`: every piece is found with the RegExp (and the matcher is never built). */
  constructor(readonly pattern: string, options: { asciiMatcher?: boolean } = {}) {
    this.scan = options.asciiMatcher === false ? noMatcher : (asciiMatcherFor(pattern) ?? noMatcher);
    this.scansAscii = this.scan !== noMatcher;
    this.sticky = new RegExp(pattern, 'uy');
    this.global = new RegExp(pattern, 'gu');
  }

  /** Finds the piece at or after `at` (< text.length) into start/end; returns where to look next, or -1 if none is left. */
  next(text: string, at: number): number {
    const end = this.scan(text, at);
    if (end >= 0) {
      this.start = at;
      return (this.end = end);
    }
    return this.byRegExp(text, at);
  }

  /** As `next`, with the RegExp only. */
  byRegExp(text: string, at: number): number {
    const sticky = this.sticky;
    sticky.lastIndex = at;
    if (sticky.test(text) && sticky.lastIndex > at) {
      this.start = at;
      return (this.end = sticky.lastIndex);
    }
    // No piece starts here: search on the way matchAll does (an empty match moves one code point on).
    const global = this.global;
    global.lastIndex = at;
    const match = global.exec(text);
    if (!match) return -1;
    this.start = match.index;
    this.end = match.index + match[0].length;
    if (this.end > this.start) return this.end;
    return match.index + (text.codePointAt(match.index)! > 0xffff ? 2 : 1);
  }
}

function noMatcher(): number {
  return -1;
}

/** The pieces of `text` as strings (for tests and diagnostics). */
export function splitPieces(pattern: string, text: string): string[] {
  const splitter = new PieceSplitter(pattern);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const next = splitter.next(text, at);
    if (next < 0) break;
    if (splitter.end > splitter.start) pieces.push(text.slice(splitter.start, splitter.end));
    at = next;
  }
  return pieces;
}
