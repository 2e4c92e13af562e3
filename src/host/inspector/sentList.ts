import type { ListPatch } from '../../protocol/listPatch';

/** Positions known unchanged, bounded by both lists. */
function unchangedPrefix(unchanged: number, list: readonly unknown[], last: readonly unknown[]): number {
  return Math.min(unchanged, list.length, last.length);
}

/**
 * What a webview holds of one keyed list, as the host last sent it, and the change to a new list.
 * The part of the new list made of the very objects sent last time (at the same places) is passed
 * over by pointer (from where the list's lineage says it changed, when the caller knows); after it,
 * an element the host kept costs a key lookup, and one rebuilt with the same content (`byValue`) is
 * matched by its JSON. A refresh of a long list then costs
 * and sends about what changed, not the whole list.
 */
export class SentList<T extends object> {
  private order: string[] = [];
  private last: readonly T[] = [];
  private sent = new Map<string, { element: T; json?: string }>();

  /**
   * `sameKey(a, b, i)`: whether `a`, at place `i` where `b` was, has the key `b` had (for keys
   * that depend on the elements before); by default, whether `a`'s own key is the one sent there.
   */
  constructor(
    private readonly keyOf: (element: T) => string,
    private readonly byValue: (element: T) => boolean = () => false,
    private readonly sameKey: (a: T, b: T, at: number) => boolean = (a, _b, at) => this.key(a) === this.order[at],
  ) {}

  /** Forget what was sent: the next change carries every element. */
  reset(): void {
    this.order = [];
    this.last = [];
    this.sent = new Map();
  }

  private key(element: T): string {
    return this.keyOf(element);
  }

  /**
   * Records `list` as sent when it is the list sent last with `count` elements dropped at `at`, its
   * last `replaced` elements left out, and elements added at its end with `addedKeys` (a page that
   * slid on); returns that change.
   */
  slide(list: readonly T[], at: number, count: number, replaced: number, addedKeys: readonly string[]): ListPatch<T> {
    const kept = this.order.slice(0, this.order.length - replaced);
    for (const key of [...kept.slice(at, at + count), ...this.order.slice(this.order.length - replaced)]) this.sent.delete(key);
    const added = list.slice(list.length - addedKeys.length);
    added.forEach((element, i) => this.sent.set(addedKeys[i], { element }));
    this.order = [...kept.slice(0, at), ...kept.slice(at + count), ...addedKeys];
    this.last = list;
    return { drop: { at, count }, keep: this.order.length - addedKeys.length, tail: [...addedKeys], upserts: added, upsertKeys: [...addedKeys] };
  }

  /**
   * Records `list` as sent; returns the change from the previous list. `keysAfter`: for lists
   * whose keys depend on an element's place, the keys of `list[from..]`, where the elements before
   * `from` have the keys they had (the keys are then sent with the upserts). `unchanged`: how many
   * leading positions are known to hold the very objects sent last time (the list's lineage says).
   */
  change(list: readonly T[], keysAfter?: (from: number) => readonly string[], unchanged = 0): ListPatch<T> {
    const last = this.last;
    // The leading elements with the keys they had: the same objects, or ones `sameKey` matches.
    let same = Math.min(unchanged, list.length, last.length);
    while (same < list.length && same < last.length && (list[same] === last[same] || this.sameKey(list[same], last[same], same))) same++;
    const order = this.order.slice(0, same);
    const later = keysAfter?.(same);
    const upserts: T[] = [];
    const upsertKeys: string[] = [];
    let keep = same;
    let diverged = false;
    const take = (element: T, key: string) => {
      const before = this.sent.get(key);
      if (before?.element === element) return;
      if (before !== undefined && this.byValue(element)) {
        // Compared by value only when the object changed; the sent one's JSON is made once.
        const json = JSON.stringify(element);
        before.json ??= JSON.stringify(before.element);
        if (before.json === json) {
          before.element = element; // the same content: later refreshes may hand this object again
          return;
        }
        this.sent.set(key, { element, json });
      } else this.sent.set(key, { element });
      upserts.push(element);
      upsertKeys.push(key);
    };
    for (let i = unchangedPrefix(unchanged, list, last); i < same; i++) if (list[i] !== last[i]) take(list[i], order[i]);
    for (let i = same; i < list.length; i++) {
      const element = list[i];
      const key = later ? later[i - same] : this.key(element);
      order.push(key);
      if (!diverged && this.order[i] === key) keep = i + 1;
      else diverged = true;
      take(element, key);
    }
    // Forget elements that left the list (they are all after the kept part).
    if (keep < this.order.length) {
      const present = new Set(order.slice(keep));
      for (let i = keep; i < this.order.length; i++) if (!present.has(this.order[i])) this.sent.delete(this.order[i]);
    }
    this.order = order;
    this.last = list;
    return keysAfter ? { keep, tail: order.slice(keep), upserts, upsertKeys } : { keep, tail: order.slice(keep), upserts };
  }
}
