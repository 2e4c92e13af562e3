import type { RequestItem } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { ListPatch } from '../../protocol/listPatch';
import { requestViewKey, type HostToInspector, type InspectorState, type RequestView } from '../../protocol/inspector';
import { requestItemKey } from '../../protocol/requestItemKeys';
import { SentList } from './sentList';

/** How many of the newest requests and offloaded results the inspector gets at first, and how many more each time it asks. */
export const INSPECTOR_PAGE = 200;

/**
 * The items of the next request the webview gets: those before the conversation (system
 * sections, tool schemas) and the newest INSPECTOR_PAGE after them; the older conversation
 * items in between are left out until the webview asks for them all (`omitted` says where and
 * how many).
 */
export function pagedItems(items: readonly RequestItem[], all: boolean): { list: readonly RequestItem[]; omitted?: { at: number; count: number } } {
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
 * What the inspector webview holds, and the message that brings it up to a new state: the whole
 * state when the webview (re)loads or the session changes, with only the newest page of requests
 * and offloaded results (older ones come when the webview asks), otherwise the state's small parts
 * with the requests and results appended since and the items of the next request that changed.
 * The session reuses a message's item while the message is unchanged, so most items are matched
 * by identity; an item rebuilt with the same content is matched by value.
 */
export class InspectorUpdates {
  private readonly requests = new PagedList<RequestView>(requestViewKey);
  // An item's key depends on the ids before it: the same ids at the same places keep their keys.
  private readonly current = new SentList<RequestItem>((item) => item.messageId, () => true, (a, b) => a.messageId === b.messageId);
  private readonly blobs = new PagedList<BlobInfo>((blob) => blob.id);
  /** The titles the webview holds, by result id, and the view's count of title changes they were checked at. */
  private sentTitles = new Map<string, string>();
  private titlesChecked?: { versions: object; titles: number };
  private sessionId?: string;
  /** How many items carry each id in the list last sent, and that list: keys are made for what changed only. */
  private idCounts = new Map<string, number>();
  private lastItems: readonly RequestItem[] = [];
  /** The webview asked for every item of the next request. */
  private allItems = false;
  /** How many compaction histories were sent, and which view's count of changes the last one matched. */
  private historySent = 0;
  private historyOf?: { versions: object; compactions: number };

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
    return keys;
  };

  /** The webview asked for older requests or results (a page more), or for every item of the next request. */
  showEarlier(list: 'turns' | 'results' | 'current'): void {
    if (list === 'current') this.allItems = true;
    else (list === 'turns' ? this.requests : this.blobs).showEarlier();
  }

  /**
   * `state` holds every request and result. `versions`: the session view's counts of changes (the
   * same object while the view lives): titles and the compaction history are looked at only when
   * theirs moved (or results were added); without it, titles always are and the history is sent.
   * Only the titles the webview does not hold travel: a compaction that stores thousands of results
   * sends each title once, not all of them again at each refresh.
   */
  message(state: InspectorState, whole = false, versions?: { readonly titles: number; readonly compactions: number }): HostToInspector {
    const { turns, current: allCurrent, blobs, blobTitles, compactions, ...rest } = state;
    if (state.session?.id !== this.sessionId) this.allItems = false;
    const { list: current, omitted } = pagedItems(allCurrent, this.allItems);
    if (whole || state.session?.id !== this.sessionId) {
      this.sessionId = state.session?.id;
      this.current.reset();
      this.idCounts = new Map();
      this.lastItems = [];
      this.current.change(current, this.itemKeysAfter(current));
      const shownRequests = this.requests.whole(turns);
      const shownBlobs = this.blobs.whole(blobs);
      const titles = titlesOf(shownBlobs, blobTitles);
      this.sentTitles = new Map(Object.entries(titles ?? {}));
      this.titlesChecked = versions && { versions, titles: versions.titles };
      this.historyHeld(versions);
      return { type: 'state', state: { ...rest, ...this.earlier(omitted), turns: shownRequests, current: current as RequestItem[], blobs: shownBlobs, ...(titles ? { blobTitles: titles } : {}), compactions, historySent: this.historySent } };
    }
    const requestsPatch = this.requests.change(turns);
    const blobsPatch = this.blobs.change(blobs);
    // Titles are looked at when one changed or results were added to those shown.
    let newTitles: Record<string, string> | undefined;
    if (!versions || this.titlesChecked?.versions !== versions || this.titlesChecked.titles !== versions.titles || blobsPatch.upserts.length > 0) {
      newTitles = this.titlesNotHeld(blobs.slice(this.blobs.earlier), blobTitles);
      this.titlesChecked = versions && { versions, titles: versions.titles };
    }
    const historyChanged = !versions || this.historyOf?.versions !== versions || this.historyOf.compactions !== versions.compactions;
    if (historyChanged) this.historyHeld(versions);
    return {
      type: 'update',
      state: { ...rest, ...this.earlier(omitted), historySent: this.historySent },
      turns: requestsPatch,
      current: this.current.change(current, this.itemKeysAfter(current)),
      blobs: blobsPatch,
      ...(newTitles ? { blobTitles: newTitles } : {}),
      ...(historyChanged ? { compactions } : {}),
    };
  }

  /** The titles of the results shown that the webview does not hold as they are now, marked as held. */
  private titlesNotHeld(blobs: readonly BlobInfo[], titles: Record<string, string> | undefined): Record<string, string> | undefined {
    if (!titles) return undefined;
    let out: Record<string, string> | undefined;
    for (const b of blobs) {
      const title = titles[b.id];
      if (title === undefined || this.sentTitles.get(b.id) === title) continue;
      (out ??= {})[b.id] = title;
      this.sentTitles.set(b.id, title);
    }
    return out;
  }

  /** The history goes with this message. */
  private historyHeld(versions?: { readonly compactions: number }): void {
    this.historySent++;
    this.historyOf = versions ? { versions, compactions: versions.compactions } : undefined;
  }

  private earlier(omitted?: { at: number; count: number }): Pick<InspectorState, 'earlierTurns' | 'earlierResults' | 'currentOmitted'> {
    return { ...(this.requests.earlier ? { earlierTurns: this.requests.earlier } : {}), ...(this.blobs.earlier ? { earlierResults: this.blobs.earlier } : {}), ...(omitted ? { currentOmitted: omitted } : {}) };
  }
}

/** The titles of the results shown. */
function titlesOf(blobs: readonly BlobInfo[], titles: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!titles) return undefined;
  const out: Record<string, string> = {};
  for (const b of blobs) if (titles[b.id] !== undefined) out[b.id] = titles[b.id];
  return out;
}
