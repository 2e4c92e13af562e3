/**
 * Hand-written matchers for the pre-tokenizer patterns of o200k_base and cl100k_base, for ASCII
 * text. Each returns where the pattern's match starting at `at` ends, exactly as the sticky RegExp
 * would, or -1 when that depends on a character outside ASCII (a letter with an accent may continue
 * a word, U+00A0 is whitespace, '²' is a digit...): the caller then asks the RegExp itself.
 *
 * The patterns, alternative by alternative (the first alternative that matches wins, not the
 * longest), o200k_base:
 *   1. [^\r\n\p{L}\p{N}]?[upper]*[lower]+('s|'t|'re|'ve|'m|'ll|'d, either case)?
 *   2. [^\r\n\p{L}\p{N}]?[upper]+[lower]*(contraction)?
 *   3. \p{N}{1,3}
 *   4.  ?[^\s\p{L}\p{N}]+[\r\n/]*
 *   5. \s*[\r\n]+      6. \s+(?!\S)      7. \s+
 * cl100k_base: a contraction alone, then [^\r\n\p{L}\p{N}]?\p{L}+, then 3 to 7 as above with
 * [\r\n]* in place of [\r\n/]*. In ASCII, upper is A-Z and lower a-z, so alternatives 1 and 2 are
 * "an optional prefix, capitals, then small letters".
 */

export const O200K_PATTERN =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
export const CL100K_PATTERN =
  "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** The matcher for a pattern: where its match at `at` (< text.length) ends, or -1 to ask the RegExp. */
export type PieceEndFinder = (text: string, at: number) => number;

export function hasAsciiMatcher(pattern: string): boolean {
  return pattern === O200K_PATTERN || pattern === CL100K_PATTERN;
}

/** The hand-written matcher for `pattern`, if it has one. */
export function asciiMatcherFor(pattern: string): PieceEndFinder | undefined {
  if (!hasAsciiMatcher(pattern)) return undefined;
  if (CLASS.length === 0) CLASS = buildClasses();
  return pattern === O200K_PATTERN ? o200kPieceEnd : cl100kPieceEnd;
}

// Character classes. UNKNOWN is everything these matchers leave to the RegExp: any char past ASCII.
const UNKNOWN = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SPACE = 4; // ' ' only: the optional space of alternative 4
const BLANK = 5; // other whitespace but \r and \n
const NEWLINE = 6; // \r, \n
const OTHER = 7; // neither letter, digit nor whitespace

/**
 * The class of each UTF-16 code unit: UNKNOWN past ASCII; in ASCII, asked of the RegExp engine
 * itself so that it agrees with the patterns. Indexed directly by charCodeAt (a 64 KB table rather
 * than a test for ASCII before each look-up). Built when a matcher is first asked for, not at import.
 */
let CLASS: Uint8Array = new Uint8Array(0);

function buildClasses(): Uint8Array {
  const classes = new Uint8Array(0x10000);
  const mark = /\p{M}|\p{Lt}|\p{Lm}|\p{Lo}/u;
  const lower = /\p{Ll}/u;
  const upper = /\p{Lu}/u;
  const letter = /\p{L}/u;
  const digit = /\p{N}/u;
  const space = /\s/u;
  for (let c = 0; c < 128; c++) {
    const s = String.fromCharCode(c);
    if (mark.test(s)) classes[c] = UNKNOWN;
    else if (lower.test(s)) classes[c] = LOWER;
    else if (upper.test(s)) classes[c] = UPPER;
    else if (letter.test(s)) classes[c] = UNKNOWN;
    else if (digit.test(s)) classes[c] = DIGIT;
    else if (c === 0x20) classes[c] = SPACE;
    else if (c === 0x0d || c === 0x0a) classes[c] = NEWLINE;
    else if (space.test(s)) classes[c] = BLANK;
    else classes[c] = OTHER;
  }
  return classes;
}

/** The o200k_base pattern's match at `at` (< text.length), or -1 to ask the RegExp. */
function o200kPieceEnd(text: string, at: number): number {
  return pieceEnd(text, at, true);
}

/** The cl100k_base pattern's match at `at` (< text.length), or -1 to ask the RegExp. */
function cl100kPieceEnd(text: string, at: number): number {
  if (text.charCodeAt(at) === 0x27) {
    const end = contractionEnd(text, at); // its first alternative: a contraction on its own
    if (end > at) return end;
  }
  return pieceEnd(text, at, false);
}

/** Alternatives common to both patterns; o200k_base's words are capitals then small letters and its punctuation takes slashes after line breaks. */
function pieceEnd(text: string, at: number, o200k: boolean): number {
  const n = text.length;
  const first = CLASS[text.charCodeAt(at)];
  if (first === LOWER || first === UPPER) return o200k ? o200kWordEnd(text, at) : lettersEnd(text, at);
  if (first === DIGIT) return digitsEnd(text, at);
  if (first === UNKNOWN) return -1;
  if (first !== NEWLINE) {
    // Space, other whitespace or punctuation: the optional prefix of a word when a letter follows.
    if (at + 1 < n) {
      const second = CLASS[text.charCodeAt(at + 1)];
      if (second === UNKNOWN) return -1;
      if (second === LOWER || second === UPPER) return o200k ? o200kWordEnd(text, at + 1) : lettersEnd(text, at + 1);
      if (first === OTHER) return punctuationEnd(text, at, o200k);
      if (first === SPACE && second === OTHER) return punctuationEnd(text, at + 1, o200k);
    } else if (first === OTHER) return n;
  }
  return whitespaceEnd(text, at);
}

/** Capitals then small letters from `from`, then a contraction if one follows. */
function o200kWordEnd(text: string, from: number): number {
  const n = text.length;
  let i = from;
  while (i < n && CLASS[text.charCodeAt(i)] === UPPER) i++;
  while (i < n && CLASS[text.charCodeAt(i)] === LOWER) i++;
  if (i < n) {
    const c = text.charCodeAt(i);
    if (CLASS[c] === UNKNOWN) return -1;
    if (c === 0x27) return contractionEnd(text, i);
  }
  return i;
}

function lettersEnd(text: string, from: number): number {
  const n = text.length;
  let i = from;
  for (; i < n; i++) {
    const k = CLASS[text.charCodeAt(i)];
    if (k === LOWER || k === UPPER) continue;
    if (k === UNKNOWN) return -1;
    break;
  }
  return i;
}

/** After the apostrophe at `quote`: 's 't 'm 'd 're 've 'll in either case, else nothing. */
function contractionEnd(text: string, quote: number): number {
  const n = text.length;
  if (quote + 1 >= n) return quote;
  // | 0x20 lowercases an ASCII letter, and maps nothing else onto the letters compared below.
  const a = text.charCodeAt(quote + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return quote + 2; // s t m d
  if (quote + 2 < n) {
    const b = text.charCodeAt(quote + 2) | 0x20;
    if ((a === 0x72 || a === 0x76) && b === 0x65) return quote + 3; // re ve
    if (a === 0x6c && b === 0x6c) return quote + 3; // ll
  }
  return quote;
}

/** One to three digits. */
function digitsEnd(text: string, at: number): number {
  const n = text.length;
  let i = at + 1;
  while (i < n && i < at + 3) {
    const k = CLASS[text.charCodeAt(i)];
    if (k === DIGIT) i++;
    else if (k === UNKNOWN) return -1;
    else break;
  }
  return i;
}

/** A run of punctuation from `from`, then line breaks (and slashes for o200k_base). */
function punctuationEnd(text: string, from: number, slashes: boolean): number {
  const n = text.length;
  let i = from;
  for (; i < n; i++) {
    const k = CLASS[text.charCodeAt(i)];
    if (k === OTHER) continue;
    if (k === UNKNOWN) return -1;
    break;
  }
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x0a && c !== 0x0d && (!slashes || c !== 0x2f)) break;
  }
  return i;
}

/** Alternatives 5 to 7: through the run's last line break if it has one, else all of a run that ends the text, else all but its last char (which then prefixes what follows), but never nothing. */
function whitespaceEnd(text: string, at: number): number {
  const n = text.length;
  let i = at;
  let lastNewline = -1;
  for (; i < n; i++) {
    const k = CLASS[text.charCodeAt(i)];
    if (k === SPACE || k === BLANK) continue;
    if (k === NEWLINE) lastNewline = i;
    else if (k === UNKNOWN) return -1;
    else break;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (i === n || i - at === 1) return i;
  return i - 1;
}
