/**
 * Makes what an approval card or a code block shows match the text: characters that are invisible
 * or reorder the text (control characters, zero-width characters, bidirectional overrides) become
 * visible markers such as ⟨U+202E⟩, and (on approval cards) long runs of blank lines collapse to
 * one marked line.
 */
import { codePointName, findHidden, hiddenKind, hiddenKindText, hiddenMarker } from '../../src/protocol/hiddenCharacters';
import { h, type Child } from '../ui/dom';

export type RevealedPart = { text: string } | { marker: string; title: string };

export interface Revealed {
  parts: RevealedPart[];
  /** What was made visible, for the warning line; empty when the text is plain. */
  findings: string[];
}

const BLANK_RUN = 3;

function revealLine(line: string, findings: Set<string>): RevealedPart[] {
  const parts: RevealedPart[] = [];
  let at = 0;
  for (const { char, index } of findHidden(line)) {
    if (index > at) parts.push({ text: line.slice(at, index) });
    const kind = hiddenKindText(hiddenKind(char));
    findings.add(kind);
    parts.push({ marker: hiddenMarker(char), title: `${codePointName(char)}: ${kind.split(' (')[0]}` });
    at = index + char.length;
  }
  if (at < line.length) parts.push({ text: line.slice(at) });
  return parts;
}

/** `collapseBlankLines`: runs of 3 or more blank lines become one marked line (approval cards; code blocks keep their lines). */
export function revealHidden(text: string, opts: { collapseBlankLines?: boolean } = {}): Revealed {
  const collapse = opts.collapseBlankLines ?? true;
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
    if (collapse && /^[ \t]*$/.test(line)) {
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

/** The parts as DOM children: text as text, each marker as a `.hidden-char` span that names the character. */
export function revealedNodes(parts: readonly RevealedPart[]): Child[] {
  return parts.map((p) => ('text' in p ? p.text : h('span', { class: 'hidden-char', text: p.marker, attrs: { title: p.title } })));
}
