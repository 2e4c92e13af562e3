import type { BlobInfo } from '../../src/protocol/records';
import { button, progressRing } from '../ui/controls';
import { details, h } from '../ui/dom';
import { bytes, tokens, time } from '../ui/format';

/** Pages of one offloaded output loaded so far. */
export interface BlobView {
  text: string;
  totalBytes: number;
  nextOffset?: number;
  loading: boolean;
}

/** How many of the latest results are drawn at first, and how many more each "Show earlier" adds. */
export const RESULTS_PAGE = 100;

export interface OffloadedOptions {
  /** How many of the latest results are drawn. */
  shown: number;
  onShowEarlier: () => void;
  open: ReadonlySet<string>;
  pages: ReadonlyMap<string, BlobView>;
  onToggle: (refId: string, open: boolean) => void;
  onLoadMore: (refId: string, offset: number) => void;
  onOpenInEditor: (refId: string) => void;
}

function blobBody(blob: BlobInfo, opts: OffloadedOptions): HTMLElement[] {
  const view = opts.pages.get(blob.id);
  const out: HTMLElement[] = [
    h('div', { class: 'blob-actions' }, [
      button('Open in editor', () => opts.onOpenInEditor(blob.id), { appearance: 'secondary', attrs: { 'data-open-blob': blob.id } }),
      h('span', { class: 'muted', text: `ref_id ${blob.id} · sha256 ${blob.sha256.slice(0, 12)} · ${time(blob.createdAt)}` }),
    ]),
  ];
  if (view && view.text.length > 0) out.push(h('pre', { class: 'blob-text', attrs: { 'data-blob-text': blob.id }, text: view.text }));
  if (view?.loading) out.push(h('div', { class: 'loading' }, [progressRing('Loading'), 'Loading…']));
  if (view && !view.loading) {
    const shown = view.nextOffset ?? view.totalBytes;
    out.push(h('div', { class: 'blob-footer' }, [
      h('span', { class: 'muted', text: `${bytes(shown)} of ${bytes(view.totalBytes)} shown` }),
      view.nextOffset !== undefined
        ? button('Load more', () => opts.onLoadMore(blob.id, view.nextOffset as number), { appearance: 'secondary', attrs: { 'data-load-more': blob.id } })
        : null,
    ].filter((x): x is HTMLElement => x !== null)));
  }
  return out;
}

/**
 * Tool outputs stored in full outside the context, oldest first; expanding one pages its content
 * in. The latest are drawn, with earlier ones a page at a time.
 */
export function renderOffloadedResults(blobs: BlobInfo[], titles: Readonly<Record<string, string>>, opts: OffloadedOptions): HTMLElement {
  if (blobs.length === 0) return h('p', { class: 'empty', text: 'No offloaded results.' });
  const earlier = Math.max(0, blobs.length - Math.max(1, opts.shown));
  const more = earlier > 0
    ? button(earlier <= RESULTS_PAGE ? `Show ${earlier.toLocaleString('en-US')} earlier results` : `Show ${RESULTS_PAGE} earlier results (${earlier.toLocaleString('en-US')} more)`, () => opts.onShowEarlier(), { appearance: 'secondary', attrs: { 'data-action': 'show-earlier-results' } })
    : null;
  return h('div', { class: 'blobs' }, [more, ...blobs.slice(earlier).map((b) =>
    details(
      [
        h('span', { class: 'blob-tool', title: `ref_id ${b.id}`, text: titles[b.id] ?? b.toolName }),
        h('span', { class: 'blob-size', text: bytes(b.byteSize) }),
        h('span', { class: 'blob-lines', text: `${tokens(b.lineCount)} lines` }),
      ],
      blobBody(b, opts),
      { open: opts.open.has(b.id), class: 'blob', attrs: { 'data-ref-id': b.id }, onToggle: (isOpen) => opts.onToggle(b.id, isOpen) },
    ),
  )]);
}
