/**
 * A change to a keyed list the webview holds: first drop `drop.count` elements at `drop.at` (a
 * page that slid on), then keep the first `keep` elements, then the elements with the keys in
 * `tail`, in that order. `upserts` are the elements that are new or changed; every other key
 * refers to an element the webview already has.
 */
export interface ListPatch<T> {
  drop?: { at: number; count: number };
  keep: number;
  tail: string[];
  upserts: T[];
  /** The upserts' keys, for lists whose keys depend on an element's place (see requestItemKeys). */
  upsertKeys?: string[];
}

/** A keyed list as the webview holds it: keys in order, and each key's element. */
export interface HeldList<T> {
  order: string[];
  byKey: Map<string, T>;
}

/** A list held whole (from a full state), keyed by `keys` or by each element's own key. */
export function heldListOf<T>(list: readonly T[], keyOf: (element: T) => string, keys?: readonly string[]): HeldList<T> {
  const order = keys ? [...keys] : list.map(keyOf);
  return { order, byKey: new Map(order.map((key, i) => [key, list[i]])) };
}

/**
 * Applies a change sent by the host. Unchanged elements keep their object, so a renderer can tell
 * what to redraw by identity. A key the webview does not hold (a change that arrived out of step)
 * is reported, so the webview can ask for the whole state again.
 */
export function applyListPatch<T>(held: HeldList<T>, patch: ListPatch<T>, keyOf: (element: T) => string): { list: T[]; missing: string[] } {
  // Dropping or keeping more than is held means an earlier change never arrived: what follows cannot be trusted.
  const drop = patch.drop;
  const outOfStep = (drop !== undefined && drop.at + drop.count > held.order.length) || patch.keep > held.order.length - (drop?.count ?? 0);
  const order = drop ? [...held.order.slice(0, drop.at), ...held.order.slice(drop.at + drop.count)] : held.order;
  patch.upserts.forEach((element, i) => held.byKey.set(patch.upsertKeys?.[i] ?? keyOf(element), element));
  held.order = [...order.slice(0, Math.max(0, Math.min(patch.keep, order.length))), ...patch.tail];
  const live = new Set(held.order);
  for (const key of [...held.byKey.keys()]) if (!live.has(key)) held.byKey.delete(key);
  const list: T[] = [];
  const missing: string[] = outOfStep ? [`the first ${patch.keep} elements`] : [];
  for (const key of held.order) {
    const element = held.byKey.get(key);
    if (element !== undefined) list.push(element);
    else missing.push(key);
  }
  return { list, missing };
}
