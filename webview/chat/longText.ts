/**
 * Long texts drawn a slice at a time. A reply, its thinking, a user's message or a call's arguments
 * may run to megabytes; drawing all of it at once (markdown, markers, layout) holds the chat for
 * seconds. The first slice is drawn; "Show more" draws the next, appended, and the number of slices
 * a body shows is kept across its redraws (a streaming reply is drawn again every frame). A slice
 * drawn again with the same text takes the nodes it drew last time: a streaming reply's finished
 * slices are not parsed again each frame, so each character is drawn about once however long the
 * stream runs.
 */
import { h } from '../ui/dom';
import { grouped } from '../../src/protocol/wording';

/** Characters per slice: one slice of markdown is parsed, drawn and laid out well within a frame's budget. */
export const SLICE_CHARS = 16 * 1024;

/** How many slices each body shows, by its key (an entry and its part). */
const shownSlices = new Map<string, number>();

/** A slice as drawn: its text, its nodes, and what its drawing left for the next slices (see SliceCarry). */
interface DrawnSlice {
  text: string;
  nodes: Node[];
  carried: unknown;
}

/** The slices of the bodies drawn last, by key, the most recent last; a few bodies at a time. */
const drawnSlices = new Map<string, DrawnSlice[]>();
const KEPT_BODIES = 8;

function keptSlices(key: string): DrawnSlice[] {
  const kept = drawnSlices.get(key) ?? [];
  drawnSlices.delete(key);
  drawnSlices.set(key, kept);
  for (const old of drawnSlices.keys()) {
    if (drawnSlices.size <= KEPT_BODIES) break;
    drawnSlices.delete(old);
  }
  return kept;
}

/** Slices drawn by every drawSliced call so far (a measure of the work done, read by tests). */
let slicesDrawn = 0;
export function slicesDrawnSoFar(): number {
  return slicesDrawn;
}

/** An open fenced block: its marker (``` or ~~~, as long as it was) and its opening line (with the language). */
interface OpenFence {
  marker: string;
  line: string;
}

/** A slice's text, and what the next slice must start with to carry an open code fence over. */
interface Cut {
  end: number;
  /** The slice's own text as drawn (a code fence closed at its end when the cut fell inside one). */
  text: string;
  /** The fenced block the cut fell inside, which the next slice opens again. */
  fence?: OpenFence;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Where a plain text's slice from `start` ends: at a line end near the size, else at the size (never inside a surrogate pair). */
function plainCut(text: string, start: number, size: number): Cut {
  let end = Math.min(text.length, start + size);
  if (end < text.length) {
    const newline = text.lastIndexOf('\n', end);
    if (newline > start + size / 2) end = newline + 1;
    else if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--;
  }
  return { end, text: text.slice(start, end) };
}

/**
 * Where a markdown slice from `start` ends: at a blank line between blocks near the size. A block
 * longer than the slice is cut at a line end; a cut inside a fenced code block closes the fence in
 * this slice and opens it again (with its language) in the next, so code stays code.
 */
function markdownCut(text: string, start: number, size: number, open: OpenFence | undefined): Cut {
  if (text.length - start <= size) return { end: text.length, text: text.slice(start) };
  let fence = open;
  let lastBlankOutside = -1;
  let lastLineEnd = -1;
  let fenceAtLastLineEnd = fence;
  let at = start;
  while (at < text.length && at - start < size) {
    const newline = text.indexOf('\n', at);
    const lineEnd = newline < 0 ? text.length : newline + 1;
    // Only a line's start tells a fence or a blank line: a line of megabytes is never copied whole.
    const line = text.slice(at, Math.min(newline < 0 ? text.length : newline, at + 256));
    const marker = FENCE.exec(line)?.[1];
    if (fence === undefined && marker) fence = { marker, line: line.trim() };
    else if (fence !== undefined && marker && marker[0] === fence.marker[0] && marker.length >= fence.marker.length && line.trim() === marker) fence = undefined;
    else if (fence === undefined && line.trim() === '') lastBlankOutside = lineEnd;
    if (lineEnd - start <= size) {
      lastLineEnd = lineEnd;
      fenceAtLastLineEnd = fence;
    }
    at = lineEnd;
  }
  if (lastBlankOutside > start + size / 4) return { end: lastBlankOutside, text: text.slice(start, lastBlankOutside) };
  const closed = (cut: Cut, inside: OpenFence | undefined) => (inside === undefined ? cut : { ...cut, text: `${cut.text.replace(/\n?$/, '\n')}${inside.marker}\n`, fence: inside });
  if (lastLineEnd > start) return closed({ end: lastLineEnd, text: text.slice(start, lastLineEnd) }, fenceAtLastLineEnd);
  // One line longer than the slice: cut inside it.
  return closed(plainCut(text, start, size), fence);
}

export interface SlicedTextOptions {
  /** Keeps how many slices are shown across redraws of the same body. */
  key: string;
  kind: 'markdown' | 'plain';
  /** The element the slices go in (its class and listeners are the caller's). */
  into: HTMLElement;
  /** Draws one slice's text (for markdown: a fence reopened at its start when the cut fell inside one). */
  draw(slice: string, index: number): Node;
  /** What the button says about what is left, e.g. "characters". */
  unit?: string;
  /**
   * What drawing a slice leaves for the slices after it (markdown's link definitions, the hidden
   * characters found so far): saved after a slice is drawn, restored when its nodes are reused.
   */
  carry?: { save(): unknown; restore(saved: unknown): void };
  /** False: every slice is drawn anew (a body without a key of its own). */
  reuse?: boolean;
}

/**
 * Draws `text` into `opts.into` one slice at a time: as many slices as the body showed before
 * (one at first), then a "Show more" line saying how much is left. Texts of one slice are drawn
 * whole, as before.
 */
export function drawSliced(text: string, opts: SlicedTextOptions): HTMLElement {
  const target = opts.into;
  let start = 0;
  let fence: OpenFence | undefined;
  let drawn = 0;
  const more = h('div', { class: 'show-more', attrs: { 'data-show-more': opts.key } });
  const kept = opts.reuse === false ? [] : keptSlices(opts.key);
  const drawNext = () => {
    const cut = opts.kind === 'markdown' ? markdownCut(text, start, SLICE_CHARS, fence) : plainCut(text, start, SLICE_CHARS);
    const slice = fence !== undefined ? `${fence.line}\n${cut.text}` : cut.text;
    const before = kept[drawn];
    let nodes: Node[];
    if (before?.text === slice) {
      nodes = before.nodes;
      opts.carry?.restore(before.carried);
    } else {
      const node = opts.draw(slice, drawn);
      slicesDrawn++;
      nodes = node instanceof DocumentFragment ? Array.from(node.childNodes) : [node];
      // The slices after this one were drawn after a different one: they are drawn again too.
      kept.length = drawn;
      kept.push({ text: slice, nodes, carried: opts.carry?.save() });
    }
    for (const node of nodes) target.insertBefore(node, more.parentNode === target ? more : null);
    start = cut.end;
    fence = cut.fence;
    drawn++;
  };
  const wanted = Math.max(1, shownSlices.get(opts.key) ?? 1);
  while (drawn < wanted && start < text.length) drawNext();
  if (drawn === 0) drawNext();
  const update = () => {
    const left = text.length - start;
    if (left <= 0) {
      more.remove();
      return;
    }
    more.replaceChildren(
      h('span', { class: 'show-more-text', text: `${grouped(left)} more ${opts.unit ?? 'characters'} not shown yet · ` }),
      h('button', {
        class: 'link-button',
        text: 'Show more',
        attrs: { type: 'button', 'data-action': 'show-more' },
        on: {
          click: (event) => {
            event.stopPropagation();
            drawNext();
            shownSlices.set(opts.key, drawn);
            update();
          },
        },
      }),
    );
    if (more.parentNode !== target) target.appendChild(more);
  };
  update();
  return target;
}
