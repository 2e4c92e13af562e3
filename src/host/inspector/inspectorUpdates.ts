import { markOf, unchangedBefore, type ListMark } from '../../core/model/listLineage';
import type { RequestItem } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { ListPatch } from '../../protocol/listPatch';
import { requestViewKey, type HostToInspector, type InspectorState, type RequestView } from '../../protocol/inspector';
import { requestItemKey } from '../../protocol/requestItemKeys';
import type { InspectorChange } from '../sessionState/sessionPatch';
import type { InspectorParts } from './inspectorState';
import { SentList } from './sentList';

/** How many of the newest requests and offloaded results the inspector gets at first, and how many more each time it asks. */
export const INSPECTOR_PAGE = 200;

/**
 * The items of the next request the webview gets: those before the conversation (system
 * sections, tool schemas) and the newest INSPECTOR_PAGE after them; the older conversation
 * items in between are left out until the webview asks for them all (`omitted` says where and
 * how many).
 */
function pagedItems(items: readonly RequestItem[], all: boolean): { list: readonly RequestItem[]; omitted?: { at: number; count: number } } {
  if (all || items.length <= INSPECTOR_PAGE) return { list: items };
  const head = items.findIndex((item) => item.section === 'conversation');
  const tailFrom = items.length - INSPECTOR_PAGE;
  if (head < 0 || tailFrom <= head) return { list: items };
  return { list: [...items.slice(0, head), ...items.slice(tailFrom)], omitted: { at: head, count: tailFrom - head } };
}

/**
 * The newest part of a list that only grows (requests, offloaded results): sent from `start`,
 * extended by what is appended and, when the webview asks, by a page of older elements. Nothing
 * is compared: an element, once recorded, does not change.
 */
class PagedList<T> {
  /** Where the part the webview holds begins, and how long the list was when last sent. */
  private start = 0;
  private sent = 0;
  private lastKey?: string;
  /** Set when the webview asked for older elements: where the part it holds will begin. */
  private olderFrom?: number;

  constructor(private readonly keyOf: (element: T) => string) {}

  /** How many older elements the webview does not hold. */
  get earlier(): number {
    return this.start;
  }

  whole(list: readonly T[]): T[] {
    this.start = Math.max(0, list.length - INSPECTOR_PAGE);
    return this.mark(list, list.slice(this.start));
  }

  /** A page more of the older elements goes with the next change. */
  showEarlier(): void {
    this.olderFrom = Math.max(0, this.start - INSPECTOR_PAGE);
  }

  change(list: readonly T[]): ListPatch<T> {
    // The list is not the one extended (another session's, or shorter): the page is sent again.
    const grown = list.length >= this.sent && (this.sent === 0 || this.keyOf(list[this.sent - 1]) === this.lastKey);
    if (!grown) {
      const page = this.whole(list);
      return { keep: 0, tail: page.map(this.keyOf), upserts: page };
    }
    if (this.olderFrom !== undefined && this.olderFrom < this.start) {
      const from = this.olderFrom;
      const upserts = [...list.slice(from, this.start), ...list.slice(this.sent)];
      this.olderFrom = undefined;
      this.start = from;
      const shown = this.mark(list, list.slice(from));
      return { keep: 0, tail: shown.map(this.keyOf), upserts };
    }
    this.olderFrom = undefined;
    const added = list.slice(this.sent);
    const keep = this.sent - this.start;
    this.mark(list, added);
    return { keep, tail: added.map(this.keyOf), upserts: added };
  }

  private mark(list: readonly T[], page: T[]): T[] {
    this.sent = list.length;
    this.lastKey = list.length ? this.keyOf(list[list.length - 1]) : undefined;
    return page;
  }
}

/**
 * What the inspector webview holds, and the messages that bring it up to date: the whole state
 * when the webview (re)loads or another session is shown, with only the newest page of requests
 * and offloaded results (older ones come when the webview asks), then, for each change of the
 * session's state, its small parts with what the change touched: the requests and results
 * appended, the names given, the compaction history, and the next request's items from where
 * their list changed (its lineage says where; the session reuses a message's item while the
 * message is unchanged, so the rest are passed over by identity, or matched by value).
 */
export class InspectorUpdates {
  private readonly requests = new PagedList<RequestView>(requestViewKey);
  // An item's key depends on the ids before it: the same ids at the same places keep their keys.
  private readonly current = new SentList<RequestItem>((item) => item.messageId, () => true, (a, b) => a.messageId === b.messageId);
  private readonly blobs = new PagedList<BlobInfo>((blob) => blob.id);
  /** How many items carry each id in the list last sent, and that list: keys are made for what changed only. */
  private idCounts = new Map<string, number>();
  private lastItems: readonly RequestItem[] = [];
  private lastItemsMark?: ListMark;
  /** The webview asked for every item of the next request. */
  private allItems = false;
  /** When the items sent were a page of the next request's: the whole list it was cut from, its mark, and where the page began. */
  private lastPage?: { full: readonly RequestItem[]; mark?: ListMark; from: number; head: number };
  private sessionId?: string;
  /** How many compaction histories were sent. */
  private historySent = 0;
  /** The webview asked for older requests or results, or for every item: the next update carries them. */
  private asked = false;

  /** Keys of `items[from..]`, where `items[0..from)` carry the ids the items last sent there did. */
  private readonly itemKeysAfter = (items: readonly RequestItem[]) => (from: number): string[] => {
    const counts = this.idCounts;
    for (let i = from; i < this.lastItems.length; i++) {
      const id = this.lastItems[i].messageId;
      const n = (counts.get(id) ?? 1) - 1;
      if (n > 0) counts.set(id, n);
      else counts.delete(id);
    }
    const keys: string[] = [];
    for (let i = from; i < items.length; i++) {
      const id = items[i].messageId;
      const n = counts.get(id) ?? 0;
      keys.push(requestItemKey(id, n));
      counts.set(id, n + 1);
    }
    this.lastItems = items;
    this.lastItemsMark = markOf(items);
    return keys;
  };

  /** The webview asked for older requests or results (a page more), or for every item of the next request. */
  showEarlier(list: 'requests' | 'results' | 'current'): void {
    if (list === 'current') this.allItems = true;
    else (list === 'requests' ? this.requests : this.blobs).showEarlier();
    this.asked = true;
  }

  /** The whole state: the webview (re)loaded, or another session is shown. */
  whole(parts: InspectorParts): HostToInspector {
    const sessionId = parts.small.session?.id;
    if (sessionId !== this.sessionId) this.allItems = false;
    this.sessionId = sessionId;
    this.asked = false;
    const full = parts.current();
    const { list: current, omitted } = pagedItems(full, this.allItems);
    this.current.reset();
    this.idCounts = new Map();
    this.lastItems = [];
    this.current.change(current, this.itemKeysAfter(current));
    this.notePage(full, omitted);
    const requests = this.requests.whole(parts.requests);
    const blobs = this.blobs.whole(parts.blobs);
    const titles = titlesOf(blobs, parts.titles);
    this.historySent++;
    return { type: 'state', state: { ...parts.small, ...this.earlier(omitted), requests, current: current as RequestItem[], blobs, ...(titles ? { blobTitles: titles } : {}), compactions: [...parts.compactions], historySent: this.historySent } };
  }

  /**
   * What `change` (and what the webview asked for since) changed of what it holds; undefined when
   * nothing it shows did. The small parts always go whole.
   */
  update(parts: InspectorParts, change: InspectorChange): HostToInspector | undefined {
    const asked = this.asked;
    this.asked = false;
    if (!asked && !change.requests && !change.blobs && !change.titles && !change.compactions && !change.context) return undefined;
    const requests = this.requests.change(parts.requests);
    const blobs = this.blobs.change(parts.blobs);
    // Names of the results newly shown, and the names given since (the webview adds them to those it has).
    let titles: Record<string, string> | undefined = change.titles && { ...change.titles };
    for (const blob of blobs.upserts) {
      const title = parts.titles.get(blob.id);
      if (title !== undefined) (titles ??= {})[blob.id] = title;
    }
    let omitted: { at: number; count: number } | undefined;
    let current: ListPatch<RequestItem> = { keep: this.lastItems.length, tail: [], upserts: [] };
    if (change.context || asked) {
      const full = parts.current();
      const paged = pagedItems(full, this.allItems);
      omitted = paged.omitted;
      // A page that only slid on (messages appended) drops its oldest items and adds the new ones;
      // otherwise, past where the list's lineage says it changed, the items are compared.
      current = this.slid(full, paged) ?? this.current.change(paged.list, this.itemKeysAfter(paged.list), unchangedBefore(this.lastItemsMark, paged.list));
      this.notePage(full, omitted);
    } else omitted = this.lastOmitted;
    if (change.compactions) this.historySent++;
    return {
      type: 'update',
      state: { ...parts.small, ...this.earlier(omitted), historySent: this.historySent },
      requests,
      current,
      blobs,
      ...(titles ? { blobTitles: titles } : {}),
      ...(change.compactions ? { compactions: [...parts.compactions] } : {}),
    };
  }

  private notePage(full: readonly RequestItem[], omitted?: { at: number; count: number }): void {
    this.lastPage = omitted && { full, mark: markOf(full), from: omitted.at + omitted.count, head: omitted.at };
  }

  /**
   * The change of the page of items sent when the page slid on: its oldest items dropped, the items
   * from where the whole list's lineage says it changed (the message framing at its end, and what
   * was appended) sent again with keys that follow those kept. Undefined when the prompt's items
   * changed, or an id dropped is also in what stays (its items' keys would move).
   */
  private slid(full: readonly RequestItem[], paged: { list: readonly RequestItem[]; omitted?: { at: number; count: number } }): ListPatch<RequestItem> | undefined {
    const last = this.lastPage;
    if (!last || !paged.omitted || paged.omitted.at !== last.head) return undefined;
    const from = paged.omitted.at + paged.omitted.count;
    const count = from - last.from;
    const unchanged = Math.max(from, Math.min(unchangedBefore(last.mark, full), last.full.length));
    if (count < 0 || unchangedBefore(last.mark, full) < last.head || count > last.full.length - last.from) return undefined;
    // What leaves the page: its oldest items, and those past where it changed.
    const removed = new Map<string, number>();
    const leaving = (i: number) => removed.set(last.full[i].messageId, (removed.get(last.full[i].messageId) ?? 0) + 1);
    for (let i = last.from; i < from; i++) leaving(i);
    for (const [id, n] of removed) if (this.idCounts.get(id) !== n) return undefined;
    for (let i = unchanged; i < last.full.length; i++) leaving(i);
    for (const [id, n] of removed) {
      const left = (this.idCounts.get(id) ?? 0) - n;
      if (left > 0) this.idCounts.set(id, left);
      else this.idCounts.delete(id);
    }
    const keys: string[] = [];
    for (let i = unchanged; i < full.length; i++) {
      const id = full[i].messageId;
      const n = this.idCounts.get(id) ?? 0;
      keys.push(requestItemKey(id, n));
      this.idCounts.set(id, n + 1);
    }
    this.lastItems = paged.list;
    this.lastItemsMark = markOf(paged.list);
    return this.current.slide(paged.list, last.head, count, last.full.length - unchanged, keys);
  }

  /** Where the items left out of the next request's list were, as last sent. */
  private lastOmitted?: { at: number; count: number };

  private earlier(omitted?: { at: number; count: number }): Pick<InspectorState, 'earlierRequests' | 'earlierResults' | 'currentOmitted'> {
    this.lastOmitted = omitted;
    return { ...(this.requests.earlier ? { earlierRequests: this.requests.earlier } : {}), ...(this.blobs.earlier ? { earlierResults: this.blobs.earlier } : {}), ...(omitted ? { currentOmitted: omitted } : {}) };
  }
}

/** The titles of the results shown; undefined when none has one. */
function titlesOf(blobs: readonly BlobInfo[], titles: ReadonlyMap<string, string>): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const b of blobs) {
    const title = titles.get(b.id);
    if (title !== undefined) (out ??= {})[b.id] = title;
  }
  return out;
}
