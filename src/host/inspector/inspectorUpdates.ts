import type { RequestItem } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import { turnViewKey, type HostToInspector, type InspectorState, type TurnView } from '../../protocol/inspector';
import { requestItemKey } from '../../protocol/requestItemKeys';
import { SentList } from './sentList';

/**
 * What the inspector webview holds, and the message that brings it up to a new state: the whole
 * state when the webview (re)loads or the session changes, otherwise the state's small parts with
 * only the requests and items that changed. The session reuses a message's item while the message
 * is unchanged and the usage list reuses its records, so most elements are matched by identity;
 * an item rebuilt with the same content is matched by value. A refresh of a long session then
 * posts a few entries, not every request and every item of the context.
 */
export class InspectorUpdates {
  private readonly turns = new SentList<TurnView>(turnViewKey);
  // An item's key depends on the ids before it: the same ids at the same places keep their keys.
  private readonly current = new SentList<RequestItem>((item) => item.messageId, () => true, (a, b) => a.messageId === b.messageId);
  private readonly blobs = new SentList<BlobInfo>((blob) => blob.id, () => true);
  private titles?: string;
  private titlesFrom?: Record<string, string>;
  private sessionId?: string;
  /** How many items carry each id in the list last sent, and that list: keys are made for what changed only. */
  private idCounts = new Map<string, number>();
  private lastItems: readonly RequestItem[] = [];

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

  message(state: InspectorState, whole = false): HostToInspector {
    const { turns, current, blobs, blobTitles, ...rest } = state;
    // The same titles object as last time says the same titles (the builder memoizes them).
    const titles = blobTitles !== undefined && blobTitles === this.titlesFrom ? this.titles : JSON.stringify(blobTitles ?? {});
    this.titlesFrom = blobTitles;
    if (whole || state.session?.id !== this.sessionId) {
      this.sessionId = state.session?.id;
      for (const list of [this.turns, this.current, this.blobs]) list.reset();
      this.idCounts = new Map();
      this.lastItems = [];
      this.turns.change(turns);
      this.current.change(current, this.itemKeysAfter(current));
      this.blobs.change(blobs);
      this.titles = titles;
      return { type: 'state', state };
    }
    const titlesChanged = titles !== this.titles;
    this.titles = titles;
    return {
      type: 'update',
      state: rest,
      turns: this.turns.change(turns),
      current: this.current.change(current, this.itemKeysAfter(current)),
      blobs: this.blobs.change(blobs),
      ...(titlesChanged ? { blobTitles: blobTitles ?? {} } : {}),
    };
  }
}
