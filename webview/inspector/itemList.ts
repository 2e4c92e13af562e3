import { revealCharacters } from '../../src/protocol/hiddenCharacters';
import type { RequestItem } from '../../src/protocol/records';
import { requestItemKeys } from '../../src/protocol/requestItemKeys';
import { badge, button } from '../ui/controls';
import { h, replace, replaceIfChanged } from '../ui/dom';
import { KeyedChildren } from '../ui/keyedChildren';
import { nextPageLabel, setPageButton } from '../ui/pageButton';
import { tokensWithEstimate } from '../../src/protocol/inspector';
import { tokens } from '../ui/format';
import { countOf } from '../../src/protocol/wording';

export type ItemSort = 'position' | 'size';

export interface ItemListOptions {
  sort: ItemSort;
  onSort: (sort: ItemSort) => void;
  /** When set, each row gets a pin/unpin toggle. */
  onPin?: (messageId: string, pinned: boolean) => void;
  label: string;
  /** The stored request the items belong to; absent for the working context now. */
  requestIndex?: number;
  /** Asks the host for one item's exact text (the answer goes to `itemTextArrived`, then the list renders again). */
  onRequestText?: (itemId: string) => void;
  /** Opens the item (by its position in wire order) as a read-only document in an editor. */
  onOpenInEditor?: (position: number) => void;
  /**
   * The figure the header shows for this list as a whole: the provider's count for a stored request,
   * the context now for the next one. The items are Tally's estimate; where the two differ the
   * summary shows both.
   */
  shownTotal?: number;
  /** A link the item's row carries, by message id (a delegate call or its result: "Open subagent's window"). */
  links?: ReadonlyMap<string, ItemLink>;
}

/** A link on an item's row: its label, what it says on hover, and what it does. */
export interface ItemLink {
  key: string;
  label: string;
  title: string;
  open: () => void;
}

/** How many rows a list draws at first, and how many more each "Show more" adds. */
export const ITEMS_PAGE = 200;
/** Rows drawn per list (by label and request), kept across renders. */
const shownRows = new Map<string, number>();

/** Texts the host sent, by list and item; which rows are expanded. Kept across renders. */
const texts = new Map<string, { text: string; totalChars: number }>();
const expanded = new Set<string>();

function key(requestIndex: number | undefined, itemId: string): string {
  return `${requestIndex ?? 'now'}\u0000${itemId}`;
}

/** Stores an item's text from the host's `requestItemText` answer. */
export function itemTextArrived(message: { requestIndex?: number; itemId: string; text: string; totalChars: number }): void {
  texts.set(key(message.requestIndex, message.itemId), { text: message.text, totalChars: message.totalChars });
}

const SECTION_TITLES: Record<string, string> = { system: 'system', tools: 'tool', dynamic: 'dynamic', conversation: '' };

/** What a row says the item is: its label or kind, its tool, where it comes from (hidden characters as ⟨U+…⟩ markers). */
function describe(item: RequestItem): string {
  // A user message of kind 'user' reads "user · message", not "user user".
  const parts = [item.label ?? (item.kind === item.role ? 'message' : item.kind)];
  if (item.label === undefined && item.toolName) parts.push(item.toolName);
  if (item.source) parts.push(item.source);
  if (item.path && item.path !== item.label) parts.push(item.path);
  return revealCharacters(parts.join(' · '));
}

/** What one row shows: its item, where it stands, and whether its text is open (and loaded). */
interface Row {
  /** Its key among the rows (see requestItemKeys). */
  key: string;
  /** Where its open state and text are kept (see `key()`). */
  textKey: string;
  item: RequestItem;
  position: number;
  open: boolean;
  text?: { text: string; totalChars: number };
  link?: ItemLink;
}

const sameRow = (a: Row, b: Row) => a.item === b.item && a.position === b.position && a.open === b.open && a.text === b.text && a.link?.key === b.link?.key;

/** A list's elements, kept from render to render so unchanged rows are not drawn again. */
interface ListView {
  root: HTMLElement;
  toolbar: HTMLElement;
  body: HTMLElement;
  empty: HTMLElement;
  more: HTMLElement;
  rows: KeyedChildren<Row>;
  opts: ItemListOptions;
}
const views = new Map<string, ListView>();

function renderRow(row: Row, view: ListView): HTMLElement {
  const { item, position, open, text, textKey: at, link } = row;
  const opts = () => view.opts;
  const pinned = item.badges.includes('pinned');
  const where = item.section ? SECTION_TITLES[item.section] : '';
  // Prompt parts have a stored text only when they carry its hash (numbers-only parts do not).
  const hasText = item.textHash !== undefined || item.kind === 'framing' || !item.section || item.section === 'conversation';
  const toggle = opts().onRequestText && hasText
    ? button(open ? 'Hide text' : 'Show text', () => {
        if (open) expanded.delete(at);
        else {
          expanded.add(at);
          if (!text) opts().onRequestText?.(item.messageId);
        }
        opts().onSort(opts().sort); // renders the list again
      }, { appearance: 'secondary', class: 'text-toggle', attrs: { 'data-expand': item.messageId, 'aria-expanded': String(open) } })
    : null;
  return h('li', { class: `item role-${cssToken(item.role)}${item.section ? ` section-${cssToken(item.section)}` : ''}`, attrs: { 'data-message-id': item.messageId, 'data-kind': item.kind, 'data-position': position, 'data-tokens': item.tokens } }, [
    h('div', { class: 'item-head' }, [
      h('span', { class: 'item-pos', text: `${position + 1}` }),
      h('span', { class: 'item-role', text: where || item.role }),
      h('span', { class: 'item-kind', text: describe(item), title: item.path ?? item.source }),
      h('span', { class: 'item-tokens', text: `${tokens(item.tokens)} tok` }),
      h('span', { class: 'item-badges' }, item.badges.map((b) => badge(b))),
      toggle,
      link ? h('button', { class: 'link-button item-link', title: link.title, attrs: { type: 'button', 'data-item-link': link.key }, text: link.label, on: { click: () => link.open() } }) : null,
      opts().onOpenInEditor && hasText
        ? button('Open', () => opts().onOpenInEditor?.(position), { appearance: 'secondary', class: 'open-item', title: 'Open the exact text in a read-only editor', attrs: { 'data-open-item': String(position) } })
        : null,
      opts().onPin && (!item.section || item.section === 'conversation') && item.kind !== 'framing'
        ? button(pinned ? 'Unpin' : 'Pin', () => opts().onPin?.(item.messageId, !pinned), {
            appearance: 'secondary',
            class: 'pin-toggle',
            title: pinned ? 'Let compaction remove this item again' : 'Keep this item through compactions',
            attrs: { 'data-pin': item.messageId, 'aria-pressed': String(pinned) },
          })
        : null,
    ]),
    item.preview && !open ? h('div', { class: 'item-preview', text: item.preview }) : null,
    open
      ? text
        ? h('pre', { class: 'item-text', attrs: { 'data-item-text': item.messageId, tabindex: 0 }, text: text.text })
        : h('div', { class: 'item-text loading', text: 'Loading the text…' })
      : null,
  ]);
}

/**
 * Items of a request (or of the next request), one row each, sortable by position or size; each
 * expands to its exact text. The same element is returned for the same list from render to
 * render, and only rows whose item, place or text changed are drawn again.
 */
export function renderItemList(items: RequestItem[], opts: ItemListOptions): HTMLElement {
  const listKey = `${opts.label}\u0000${opts.requestIndex ?? 'now'}`;
  let view = views.get(listKey);
  if (!view) {
    const ol = h('ol', { class: 'items' });
    const created: ListView = {
      root: h('div', { class: 'item-list', attrs: { 'data-list': opts.label } }),
      toolbar: h('div', { class: 'list-toolbar' }),
      body: h('div', { class: 'item-rows' }),
      empty: h('p', { class: 'empty', text: 'No items.' }),
      more: h('div', { class: 'items-more' }),
      rows: new KeyedChildren<Row>(ol, (row) => row.key, (row) => renderRow(row, created), sameRow),
      opts,
    };
    created.root.append(created.toolbar, created.body, created.more);
    view = created;
    // One list view per list shown: a request's list is dropped when another request's is drawn.
    for (const key of [...views.keys()]) if (key.startsWith(`${opts.label}\u0000`)) views.delete(key);
    views.set(listKey, view);
  }
  view.opts = opts;
  const indexed = items.map((item, position) => ({ item, position }));
  if (opts.sort === 'size') indexed.sort((a, b) => b.item.tokens - a.item.tokens || a.position - b.position);
  const total = items.reduce((sum, i) => sum + i.tokens, 0);
  const sortButton = (sort: ItemSort, label: string) =>
    button(label, () => opts.onSort(sort), { appearance: opts.sort === sort ? 'primary' : 'secondary', attrs: { 'data-sort': sort, 'aria-pressed': String(opts.sort === sort) } });
  const shown = shownRows.get(listKey) ?? ITEMS_PAGE;
  const hidden = Math.max(0, indexed.length - shown);
  // Rows are keyed as the host keys items (a repeated id keeps its own row).
  const keys = requestItemKeys(items);
  const rows = indexed.slice(0, shown).map(({ item, position }): Row => {
    const at = key(opts.requestIndex, item.messageId);
    const link = opts.links?.get(item.messageId);
    return { key: keys[position], textKey: at, item, position, open: expanded.has(at), text: texts.get(at), ...(link ? { link } : {}) };
  });
  view.rows.update(rows);
  // The toolbar and the "Show more" button are made again when what they say changes; the rows'
  // list element stays in place (moving it would reconnect every row's controls).
  replaceIfChanged(view.toolbar, `${items.length}\u0000${total}\u0000${opts.shownTotal}\u0000${opts.sort}`, () => [
    h('span', { class: 'list-summary', text: `${countOf(items.length, 'item')} · ${tokensWithEstimate(opts.shownTotal ?? total, total)}` }),
    h('span', { class: 'sort-label', text: 'Sort:' }),
    sortButton('position', 'Position'),
    sortButton('size', 'Size'),
  ]);
  replace(view.body, [items.length ? view.rows.container : view.empty]);
  setPageButton(view.more, nextPageLabel(hidden, ITEMS_PAGE, 'more item', 'not shown'), 'show-more-items', () => {
    shownRows.set(listKey, (shownRows.get(listKey) ?? ITEMS_PAGE) + ITEMS_PAGE);
    view!.opts.onSort(view!.opts.sort); // renders the list again
  });
  return view.root;
}

function cssToken(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '');
}
