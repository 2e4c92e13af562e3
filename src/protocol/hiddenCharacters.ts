/**
 * Characters that are invisible or reorder the text around them (bidirectional controls, zero-width
 * characters, control characters), and the one form every surface shows them in: a marker such as
 * ⟨U+202E⟩. The host (document titles, the insert warning) and the webviews (approval cards, code
 * blocks) use these same definitions.
 */

const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const ZERO_WIDTH = /[\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD]/;
/** Bidi and zero-width characters, C0 controls except tab and newline, DEL, C1 controls, line and paragraph separators. */
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD]/g;

export type HiddenKind = 'bidirectional' | 'zero-width' | 'control' | 'carriage return';

/** "U+202E" */
export function codePointName(c: string): string {
  return `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

export function hiddenKind(c: string): HiddenKind {
  if (BIDI.test(c)) return 'bidirectional';
  if (ZERO_WIDTH.test(c)) return 'zero-width';
  return c === '\r' ? 'carriage return' : 'control';
}

/** How a kind is named in a warning, with why it matters. */
export function hiddenKindText(kind: HiddenKind): string {
  switch (kind) {
    case 'bidirectional':
      return 'bidirectional control characters (they reorder the text shown)';
    case 'zero-width':
      return 'zero-width characters';
    case 'carriage return':
      return 'carriage returns (they can hide what comes before them)';
    default:
      return 'control characters';
  }
}

/** The visible marker for one hidden character: ⟨U+202E⟩ (a carriage return is ␍). */
export function hiddenMarker(c: string): string {
  return c === '\r' ? '␍' : `⟨${codePointName(c)}⟩`;
}

/** Each hidden character in `text`, in order, with where it is. */
export function findHidden(text: string): Array<{ char: string; index: number }> {
  return Array.from(text.matchAll(HIDDEN), (m) => ({ char: m[0], index: m.index! }));
}

/** `text` with each hidden character replaced by its marker. */
export function revealCharacters(text: string): string {
  return text.replace(HIDDEN, hiddenMarker);
}

/** Revealed text cut to `max` characters with an ellipsis, never inside a ⟨U+…⟩ marker. */
export function clipRevealed(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1).replace(/⟨[^⟩]*$/, '')}…`;
}

/** `text` without its hidden characters. */
export function withoutHidden(text: string): string {
  return text.replace(HIDDEN, '');
}

/** What `text` holds, for a warning: how many hidden characters, their kinds, and the distinct code points in order of appearance. */
export function hiddenSummary(text: string): { count: number; kinds: HiddenKind[]; codePoints: string[] } {
  const found = findHidden(text);
  const kinds = new Set<HiddenKind>();
  const codePoints = new Set<string>();
  for (const { char } of found) {
    kinds.add(hiddenKind(char));
    codePoints.add(codePointName(char));
  }
  return { count: found.length, kinds: [...kinds], codePoints: [...codePoints] };
}
