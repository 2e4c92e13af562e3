import type { RequestItem } from '../../src/protocol/records';
import { badge, button } from '../ui/controls';
import { h } from '../ui/dom';
import { tokens } from '../ui/format';

export type ItemSort = 'position' | 'size';

export interface ItemListOptions {
  sort: ItemSort;
  onSort: (sort: ItemSort) => void;
  /** When set, each row gets a pin/unpin toggle. */
  onPin?: (messageId: string, pinned: boolean) => void;
  label: string;
}

/** Items of a request (or of the next request), one row each, sortable by position or size. */
export function renderItemList(items: RequestItem[], opts: ItemListOptions): HTMLElement {
  const indexed = items.map((item, position) => ({ item, position }));
  if (opts.sort === 'size') indexed.sort((a, b) => b.item.tokens - a.item.tokens || a.position - b.position);
  const total = items.reduce((sum, i) => sum + i.tokens, 0);
  const sortButton = (sort: ItemSort, label: string) =>
    button(label, () => opts.onSort(sort), { appearance: opts.sort === sort ? 'primary' : 'secondary', attrs: { 'data-sort': sort, 'aria-pressed': String(opts.sort === sort) } });
  const rows = indexed.map(({ item, position }) => {
    const pinned = item.badges.includes('pinned');
    return h('li', { class: `item role-${cssToken(item.role)}`, attrs: { 'data-message-id': item.messageId, 'data-position': position, 'data-tokens': item.tokens } }, [
      h('div', { class: 'item-head' }, [
        h('span', { class: 'item-pos', text: `${position + 1}` }),
        h('span', { class: 'item-role', text: item.role }),
        h('span', { class: 'item-kind', text: item.toolName ? `${item.kind} · ${item.toolName}` : item.kind }),
        h('span', { class: 'item-tokens', text: `${tokens(item.tokens)} tok` }),
        h('span', { class: 'item-badges' }, item.badges.map((b) => badge(b))),
        opts.onPin
          ? button(pinned ? 'Unpin' : 'Pin', () => opts.onPin?.(item.messageId, !pinned), {
              appearance: 'secondary',
              class: 'pin-toggle',
              title: pinned ? 'Let compaction remove this item again' : 'Keep this item through compactions',
              attrs: { 'data-pin': item.messageId, 'aria-pressed': String(pinned) },
            })
          : null,
      ]),
      item.preview ? h('div', { class: 'item-preview', text: item.preview }) : null,
    ]);
  });
  return h('div', { class: 'item-list', attrs: { 'data-list': opts.label } }, [
    h('div', { class: 'list-toolbar' }, [
      h('span', { class: 'list-summary', text: `${items.length} items · ${tokens(total)} tokens` }),
      h('span', { class: 'sort-label', text: 'Sort:' }),
      sortButton('position', 'Position'),
      sortButton('size', 'Size'),
    ]),
    items.length ? h('ol', { class: 'items' }, rows) : h('p', { class: 'empty', text: 'No items.' }),
  ]);
}

function cssToken(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '');
}
