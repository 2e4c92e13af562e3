/**
 * Makes what an approval card shows match what will run: characters that are invisible or reorder
 * the text (control characters, zero-width characters, bidirectional overrides) become visible
 * markers such as ⟨U+202E⟩, and long runs of blank lines collapse to one marked line.
 */
export type RevealedPart = { text: string } | { marker: string; title: string };

export interface Revealed {
  parts: RevealedPart[];
  /** What was made visible, for the warning line; empty when the text is plain. */
  findings: string[];
}

const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/;
const ZERO_WIDTH = /[\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD]/;
// Also C0 controls except tab and newline, DEL, C1 controls, line/paragraph separators.
const SPECIAL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD]/g;
const BLANK_RUN = 3;

function codePoint(c: string): string {
  return `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function kindOf(c: string): string {
  if (BIDI.test(c)) return 'bidirectional control characters (they reorder the text shown)';
  if (ZERO_WIDTH.test(c)) return 'zero-width characters';
  return c === '\r' ? 'carriage returns (they can hide what comes before them)' : 'control characters';
}

function revealLine(line: string, findings: Set<string>): RevealedPart[] {
  const parts: RevealedPart[] = [];
  let at = 0;
  for (const match of line.matchAll(SPECIAL)) {
    if (match.index! > at) parts.push({ text: line.slice(at, match.index) });
    const c = match[0];
    findings.add(kindOf(c));
    parts.push({ marker: c === '\r' ? '␍' : `⟨${codePoint(c)}⟩`, title: `${codePoint(c)}: ${kindOf(c).split(' (')[0]}` });
    at = match.index! + c.length;
  }
  if (at < line.length) parts.push({ text: line.slice(at) });
  return parts;
}

export function revealHidden(text: string): Revealed {
  const findings = new Set<string>();
  const lines: RevealedPart[][] = [];
  let blank = 0;
  const flushBlank = () => {
    if (blank >= BLANK_RUN) {
      lines.push([{ marker: `${blank} blank lines`, title: `${blank} empty lines collapsed into this line` }]);
      findings.add(`${blank} blank lines in a row (shown collapsed)`);
    } else for (let k = 0; k < blank; k++) lines.push([]);
    blank = 0;
  };
  for (const line of text.split('\n')) {
    if (/^[ \t]*$/.test(line)) {
      blank++;
      continue;
    }
    flushBlank();
    lines.push(revealLine(line, findings));
  }
  flushBlank();
  const parts = lines.flatMap((line, i) => (i === 0 ? line : [{ text: '\n' }, ...line]));
  return { parts, findings: [...findings] };
}

/** Lines the text spans; shown in the warning when a command has more than one. */
export function lineCount(text: string): number {
  return text.split('\n').length;
}

/** The same as one plain string (markers inline), for one-line summaries. */
export function revealPlain(text: string): string {
  return revealHidden(text).parts.map((p) => ('text' in p ? p.text : p.marker)).join('');
}
