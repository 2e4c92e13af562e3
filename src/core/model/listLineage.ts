/**
 * How far a list is still what it was, for the lists a session keeps from request to request (the
 * working context, its visible messages, their items, each request's messages and items), so what
 * follows them reads only what changed instead of comparing every position: at 50,000 messages,
 * half a dozen whole-list comparisons a request were most of what grew with the session.
 *
 * A lineage is a list's successive states: one array changed in place (`trackEdits`, then
 * `noteEdit` at each change), or new arrays, each made from the one before (`noteDerived`). Every
 * change records the first position it may have touched. A follower takes a mark of the list it
 * read (`markOf`) and, given the list again, asks how many positions at its start still hold the
 * same objects (`unchangedBefore`); it compares from there on as it always did. A list no one
 * tracks, or from another lineage, answers 0: the follower compares the whole list, as before.
 */
class Lineage {
  version = 0;
  /** [version, first position that change may have touched], oldest first; only the latest are kept. */
  readonly changes: Array<[number, number]> = [];
  /** The version the oldest kept change came after: changes since an older mark are not known. */
  knownSince = 0;

  record(from: number): number {
    this.version++;
    this.changes.push([this.version, Math.max(0, from)]);
    if (this.changes.length > KEPT_CHANGES) {
      const dropped = this.changes.splice(0, this.changes.length - KEPT_CHANGES / 2);
      this.knownSince = dropped[dropped.length - 1][0];
    }
    return this.version;
  }

  /** The first position changed after version `since` up to `until` (Infinity: none; 0: not known). */
  firstChangeBetween(since: number, until: number): number {
    if (until < since || since < this.knownSince) return 0;
    let first = Infinity;
    for (let i = this.changes.length - 1; i >= 0; i--) {
      const [version, from] = this.changes[i];
      if (version <= since) break;
      if (version <= until && from < first) first = from;
    }
    return first;
  }
}

const KEPT_CHANGES = 2_048;

/** Where a list stands in its lineage: an array edited in place is always at the lineage's latest version. */
interface Place {
  lineage: Lineage;
  /** A derived array's version; undefined for the array edited in place. */
  version?: number;
}

const places = new WeakMap<readonly unknown[], Place>();

export interface ListMark {
  readonly lineage: unknown;
  readonly version: number;
}

/**
 * Positions the followers of lists read (compared, added or removed), lists indexed whole by id
 * (a change found by the general comparison), messages mapped by id by a map made whole, and the
 * pauses of work done in slices: what tests read to see a turn's work follow what changed.
 */
export const listWork = { positionsRead: 0, listsIndexed: 0, idsMapped: 0, slices: 0 };

/** Starts a lineage for `list`, an array its owner will change in place, telling each change with noteEdit. */
export function trackEdits<T extends unknown[]>(list: T): T {
  places.set(list, { lineage: new Lineage() });
  return list;
}

/** `list` (tracked with trackEdits) changed at positions `from` and after (a shorter list: from its new length). */
export function noteEdit(list: readonly unknown[], from: number): void {
  const place = places.get(list);
  if (place && place.version === undefined) place.lineage.record(from);
}

/**
 * `list` is a new array made from `from` (the latest array of its lineage) with the same objects
 * at every position before `firstChange`. When `from` is not tracked or is not the latest of its
 * lineage, `list` starts a lineage of its own (its followers then compare it whole once).
 */
export function noteDerived(list: readonly unknown[], from: readonly unknown[] | undefined, firstChange: number): void {
  const before = from && places.get(from);
  if (before && before.version !== undefined && before.version === before.lineage.version) {
    places.set(list, { lineage: before.lineage, version: before.lineage.record(firstChange) });
  } else {
    const lineage = new Lineage();
    places.set(list, { lineage, version: lineage.version });
  }
}

/** What `list` is now, for unchangedBefore later; undefined for a list no one tracks. */
export function markOf(list: readonly unknown[]): ListMark | undefined {
  const place = places.get(list);
  return place && { lineage: place.lineage, version: place.version ?? place.lineage.version };
}

/**
 * How many positions at the start of `list` hold the same objects as the list that `mark` was
 * taken of held then (positions past either's length are the caller's to bound). 0 when that is
 * not known: no mark, another lineage, or changes too far back.
 */
export function unchangedBefore(mark: ListMark | undefined, list: readonly unknown[]): number {
  if (!mark) return 0;
  const place = places.get(list);
  if (!place || place.lineage !== mark.lineage) return 0;
  return place.lineage.firstChangeBetween(mark.version, place.version ?? place.lineage.version);
}
