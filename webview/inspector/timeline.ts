import { cachedShareFell, formatShare, type RequestView } from '../../src/protocol/inspector';
import { h } from '../ui/dom';
import { KeyedChildren } from '../ui/keyedChildren';
import { nextPageLabel, setPageButton } from '../ui/pageButton';
import { percent, tokens, time } from '../ui/format';
import { USED_SEGMENTS } from './segments';
import { countOf } from '../../src/protocol/wording';
import { ownerTokens } from '../../src/protocol/records';

/** How far a request's cached share fell against the request before it, when it fell. */
type CacheFell = { from: number; to: number } | undefined;

function cacheFellText(t: RequestView, fell: NonNullable<CacheFell>): string {
  return `Cached share fell from ${percent(fell.from, 0)} at #${t.requestIndex - 1} to ${percent(fell.to, 0)}: open the request to see why`;
}

function requestTitle(t: RequestView, fell: CacheFell): string {
  const lines = [`Request #${t.requestIndex} · ${time(t.createdAt)}`, `Estimated input: ${countOf(t.estimatedInputTokens, 'token')}${t.itemCount === undefined ? '' : `, ${countOf(t.itemCount, 'item')}`}`];
  if (t.reportedInputTokens !== undefined) lines.push(`Reported input: ${tokens(t.reportedInputTokens)}`);
  if (t.reportedOutputTokens !== undefined) lines.push(`Reported output: ${tokens(t.reportedOutputTokens)}${t.reasoningTokens ? ` (${tokens(t.reasoningTokens)} reasoning)` : ''}`);
  if (t.cacheReadTokens !== undefined) lines.push(`Cache read: ${tokens(t.cacheReadTokens)}`);
  if (t.cacheWriteTokens !== undefined) lines.push(`Cache write: ${tokens(t.cacheWriteTokens)}`);
  for (const s of USED_SEGMENTS) if (ownerTokens(t.components, s.name) > 0) lines.push(`${s.label}: ${tokens(ownerTokens(t.components, s.name))}`);
  if (t.compactionId) lines.push('A compaction ran before this request');
  if (fell) lines.push(cacheFellText(t, fell));
  return lines.join('\n');
}

/** What a request carried, as every surface counts it: the provider's count when it reported one, the estimate otherwise. */
function requestSize(t: RequestView): number {
  return t.reportedInputTokens ?? t.estimatedInputTokens;
}

/** How many requests the timeline draws at first, and how many more each "Show older" adds. */
export const TIMELINE_PAGE = 200;

export interface TimelineOptions {
  effectiveWindow: number;
  selected?: number;
  onSelect(requestIndex: number): void;
  /** How many of the latest requests are drawn (the rest come with "Show older requests"). */
  shown: number;
  onShowOlder(): void;
  /** Older requests the host has not sent yet (showing older ones asks for them). */
  notSent?: number;
}

/** What one column shows. */
interface Column {
  request: RequestView;
  scale: number;
  selected: boolean;
  cacheFell: CacheFell;
}

function renderColumn({ request: t, scale, selected, cacheFell }: Column, onSelect: (requestIndex: number) => void): HTMLElement {
  const total = USED_SEGMENTS.reduce((sum, s) => sum + Math.max(0, ownerTokens(t.components, s.name)), 0);
  const stack = h('div', { class: 'turn-stack' });
  stack.style.height = `${Math.max(2, (requestSize(t) / scale) * 100)}%`;
  for (const s of USED_SEGMENTS) {
    const value = Math.max(0, ownerTokens(t.components, s.name));
    if (value === 0 || total === 0) continue;
    const part = h('div', { class: `turn-part seg-${s.name}`, attrs: { 'data-segment': s.name, 'data-tokens': value } });
    part.style.height = `${(value / total) * 100}%`;
    stack.appendChild(part);
  }
  return h('button', {
    class: `turn${selected ? ' selected' : ''}${t.compactionId ? ' compacted' : ''}`,
    title: requestTitle(t, cacheFell),
    attrs: { 'data-request-index': t.requestIndex, 'aria-pressed': selected ? 'true' : 'false', 'data-compaction': t.compactionId, type: 'button' },
    on: { click: () => onSelect(t.requestIndex) },
  }, [
    h('div', { class: 'turn-track' }, [stack]),
    h('span', { class: 'turn-label', text: `#${t.requestIndex}` }),
    t.compactionId ? h('span', { class: 'turn-compacted', text: 'C', title: 'Compaction ran before this request' }) : null,
    cacheFell ? h('span', { class: 'turn-cache-fell', text: '↓', title: cacheFellText(t, cacheFell), attrs: { 'data-cache-fell': 'true' } }) : null,
  ]);
}

/** The timeline's elements, kept from render to render: a new request draws one column. */
let view: { wrap: HTMLElement; row: HTMLElement; columns: KeyedChildren<Column>; more: HTMLElement; hint: HTMLElement; onSelect: (requestIndex: number) => void; onShowOlder: () => void } | undefined;

/**
 * One small stacked column per request; its height is the share of the effective window it
 * carried. The latest requests are drawn, a page at a time: a session of 10,000 requests costs
 * what a short one does until older ones are asked for. The same element is returned each time.
 */
export function renderTimeline(requests: RequestView[], options: TimelineOptions): HTMLElement {
  const { effectiveWindow, selected } = options;
  if (requests.length === 0) return h('p', { class: 'empty', text: 'No requests sent yet.' });
  if (!view) {
    const columnsEl = h('div', { class: 'timeline-columns' });
    const created = {
      wrap: h('div', { class: 'timeline-wrap' }),
      row: h('div', { class: 'timeline', attrs: { role: 'group', 'aria-label': 'Requests, latest first' } }),
      columns: new KeyedChildren<Column>(columnsEl, (c) => String(c.request.requestIndex), (c) => renderColumn(c, (i) => created.onSelect(i)), (a, b) => a.request === b.request && a.scale === b.scale && a.selected === b.selected && a.cacheFell?.from === b.cacheFell?.from && a.cacheFell?.to === b.cacheFell?.to),
      more: h('div', { class: 'timeline-more' }),
      hint: h('p', { class: 'hint' }),
      onSelect: options.onSelect,
      onShowOlder: options.onShowOlder,
    };
    created.row.append(columnsEl, created.more);
    created.wrap.append(created.row, created.hint);
    view = created;
  }
  view.onSelect = options.onSelect;
  view.onShowOlder = options.onShowOlder;
  let scale = Math.max(effectiveWindow, 1);
  for (const t of requests) scale = Math.max(scale, requestSize(t));
  // The latest request comes first: it is the one a user looks for, and older ones scroll into view.
  const newestFirst = [...requests].sort((a, b) => b.requestIndex - a.requestIndex);
  const drawn = newestFirst.slice(0, Math.max(1, options.shown));
  const notSent = options.notSent ?? 0;
  const older = newestFirst.length - drawn.length + notSent;
  const byIndex = new Map(requests.map((t) => [t.requestIndex, t]));
  const columns = drawn.map((request) => {
    const previous = byIndex.get(request.requestIndex - 1);
    return { request, scale, selected: selected === request.requestIndex, cacheFell: previous && cachedShareFell(previous, request) };
  });
  view.columns.update(columns);
  const fell = columns.filter((c) => c.cacheFell).length;
  setPageButton(view.more, nextPageLabel(older, TIMELINE_PAGE, 'older request'), 'show-older-requests', () => view?.onShowOlder());
  const compactions = requests.filter((t) => t.compactionId).length;
  view.hint.textContent = `${countOf(requests.length + notSent, 'request')}, latest first · ${compactions} with a compaction before them (marked C)${fell ? ` · ${fell} of those shown read less from the cache than the request before (marked ↓)` : ''} · heights are shares of the ${tokens(effectiveWindow)}-token effective window (the last request: ${countOf(requestSize(newestFirst[0]), 'token')}, ${formatShare(requestSize(newestFirst[0]) / effectiveWindow)})`;
  return view.wrap;
}
