import type { RemovedItem } from '../../src/protocol/records';
import { REMOVED_MORE, type RemovedPage } from '../../src/protocol/inspector';
import { countOf } from '../../src/protocol/wording';
import { badge, button } from '../ui/controls';
import { h } from '../ui/dom';
import { tokens } from '../ui/format';

/** The removed items past those carried that the webview asked for: from where, and whether more are on the way. */
export interface MoreRemoved {
  from: number;
  items: RemovedItem[];
  loading: boolean;
}

const REASONS: Record<RemovedItem['reason'], string> = {
  archived: 'archived',
  tool_summarized: 'tool call summarized',
  summarized: 'summarized',
  episodic: 'episodic memory',
  dropped: 'dropped',
};

/** "user", "tool result · run_command", "system note": the role once, the kind only when it adds something. */
export function itemLabel(item: { role: string; kind: string; toolName?: string }): string {
  const kind = item.kind.replace(/_/g, ' ');
  const base = item.kind === item.role || kind.startsWith(item.role) ? kind : `${item.role} ${kind}`;
  return item.toolName ? `${base} · ${item.toolName}` : base;
}

/** What left the working context, and why. `owner`: the compaction's (or the preview's) id, which keeps its list's scroll across redraws. */
export function renderRemoved(removed: RemovedItem[], owner?: string): HTMLElement {
  if (removed.length === 0) return h('p', { class: 'empty', text: 'No items removed.' });
  return h('ol', { class: 'removed', attrs: { 'data-owner': owner } }, removed.map((r) =>
    h('li', { class: 'removed-item', attrs: { 'data-message-id': r.messageId, 'data-reason': r.reason } }, [
      h('div', { class: 'item-head' }, [
        badge(REASONS[r.reason] ?? r.reason, r.reason),
        h('span', { class: 'item-kind', text: itemLabel(r) }),
        h('span', { class: 'item-tokens', text: `${tokens(r.tokens)} tok` }),
        h('span', { class: 'item-strategy', text: `by ${r.strategy}` }),
        r.offloadRef ? h('span', { class: 'item-ref', text: `full output: ${r.offloadRef}` }) : null,
      ]),
      r.preview ? h('div', { class: 'item-preview', text: r.preview }) : null,
    ]),
  ));
}

/** "Removed items (5,000) · 1,150,000 tokens": the count and tokens of all the items, not of those shown. */
export function removedHeading(page: RemovedPage): HTMLElement {
  return h('h4', { attrs: { 'data-removed-count': page.removedCount }, text: `Removed items (${page.removedCount.toLocaleString('en-US')})${page.removedCount ? ` · ${countOf(page.removedTokens, 'token')}` : ''}` });
}

/** The items carried, those asked for since, and a button for the next page of the rest (all of them when one page holds them). */
export function renderRemovedPage(owner: string, page: RemovedPage, more: MoreRemoved | undefined, onShowMore: (offset: number) => void): HTMLElement {
  const shown = more && more.from === page.removedFirst.length ? [...page.removedFirst, ...more.items] : page.removedFirst;
  const left = page.removedCount - shown.length;
  if (left <= 0) return renderRemoved(shown, owner);
  const label = left <= REMOVED_MORE ? `Show all ${countOf(page.removedCount, 'removed item')}` : `Show ${countOf(REMOVED_MORE, 'more removed item')}`;
  return h('div', { class: 'removed-page' }, [
    renderRemoved(shown, owner),
    h('p', { class: 'hint removed-more' }, [
      `${shown.length.toLocaleString('en-US')} of ${countOf(page.removedCount, 'item')} shown.`,
      button(more?.loading ? 'Loading…' : label, () => onShowMore(shown.length), { appearance: 'secondary', disabled: more?.loading, attrs: { 'data-action': 'show-removed' } }),
    ]),
  ]);
}

/**
 * Redraws `slot` with `draw`, keeping where each list of removed items in it was scrolled to: the
 * lists scroll inside their entries, and a redraw (another entry opened, a page more arriving)
 * would send them back to their first item.
 */
export function keepingRemovedScroll(slot: HTMLElement, draw: () => void): void {
  const lists = () => Array.from(slot.querySelectorAll<HTMLElement>('ol.removed[data-owner]'));
  const scrolled = new Map<string, number>();
  for (const list of lists()) if (list.scrollTop > 0) scrolled.set(list.dataset.owner!, list.scrollTop);
  draw();
  for (const list of lists()) {
    const top = scrolled.get(list.dataset.owner!);
    if (top !== undefined && list.scrollTop !== top) list.scrollTop = top;
  }
}
