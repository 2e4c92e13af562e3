import type { BlobInfo } from '../../src/protocol/records';
import { button, progressRing } from '../ui/controls';
import { details, h } from '../ui/dom';
import { KeyedChildren } from '../ui/keyedChildren';
import { nextPageLabel, setPageButton } from '../ui/pageButton';
import { bytes, time } from '../ui/format';
import { countOf } from '../../src/protocol/wording';

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
  /** Earlier results the host has not sent yet (showing earlier ones asks for them). */
  notSent?: number;
  open: ReadonlySet<string>;
  pages: ReadonlyMap<string, BlobView>;
  onToggle: (refId: string, open: boolean) => void;
  onLoadMore: (refId: string, offset: number) => void;
  /** Absent where results do not open in an editor (a subagent's window). */
  onOpenInEditor?: (refId: string) => void;
}

function blobBody(blob: BlobInfo, opts: OffloadedOptions): HTMLElement[] {
  const view = opts.pages.get(blob.id);
  const out: HTMLElement[] = [
    h('div', { class: 'blob-actions' }, [
      opts.onOpenInEditor ? button('Open in editor', () => opts.onOpenInEditor?.(blob.id), { appearance: 'secondary', attrs: { 'data-open-blob': blob.id } }) : null,
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

/** What one result's row shows. */
interface ResultRow {
  blob: BlobInfo;
  title: string;
  open: boolean;
  view?: BlobView;
}

function renderResult(row: ResultRow, opts: () => OffloadedOptions): HTMLElement {
  const { blob: b } = row;
  return details(
    [
      h('span', { class: 'blob-tool', title: `ref_id ${b.id}`, text: row.title }),
      h('span', { class: 'blob-size', text: bytes(b.byteSize) }),
      h('span', { class: 'blob-lines', text: countOf(b.lineCount, 'line') }),
    ],
    blobBody(b, opts()),
    { open: row.open, class: 'blob', attrs: { 'data-ref-id': b.id }, onToggle: (isOpen) => opts().onToggle(b.id, isOpen) },
  );
}

/** The list's elements, kept from render to render: a new result draws one row. */
interface ResultList {
  root: HTMLElement;
  more: HTMLElement;
  rows: KeyedChildren<ResultRow>;
  opts: OffloadedOptions;
}
let list: ResultList | undefined;

/**
 * Tool outputs stored in full outside the context, oldest first; expanding one pages its content
 * in. The latest are drawn, with earlier ones a page at a time. The same element is returned each time.
 */
export function renderOffloadedResults(blobs: BlobInfo[], titles: Readonly<Record<string, string>>, opts: OffloadedOptions): HTMLElement {
  if (blobs.length === 0) return h('p', { class: 'empty', text: 'No offloaded results.' });
  let current = list;
  if (!current) {
    const rowsEl = h('div', { class: 'blob-rows' });
    const created: ResultList = {
      root: h('div', { class: 'blobs' }),
      more: h('div', { class: 'blobs-more' }),
      rows: new KeyedChildren<ResultRow>(rowsEl, (row) => row.blob.id, (row) => renderResult(row, () => created.opts), (a, b) => a.blob === b.blob && a.title === b.title && a.open === b.open && a.view === b.view),
      opts,
    };
    created.root.append(created.more, rowsEl);
    current = list = created;
  }
  const view = current;
  view.opts = opts;
  const earlier = Math.max(0, blobs.length - Math.max(1, opts.shown));
  setPageButton(view.more, nextPageLabel(earlier + (opts.notSent ?? 0), RESULTS_PAGE, 'earlier result'), 'show-earlier-results', () => view.opts.onShowEarlier());
  view.rows.update(blobs.slice(earlier).map((blob) => ({ blob, title: titles[blob.id] ?? blob.toolName, open: opts.open.has(blob.id), view: opts.pages.get(blob.id) })));
  return view.root;
}
