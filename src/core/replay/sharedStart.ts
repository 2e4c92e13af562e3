/**
 * How many leading elements two arrays share as the very same objects. A session hands out the
 * same message and item objects while they are unchanged, so consecutive requests share a long
 * start: work that only depends on each element is redone from there, not over the whole request.
 */
export function sharedStart<T>(a: readonly T[], b: readonly T[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * A running total of a per-element value over a list that changes request by request: `update`
 * keeps the totals of the start shared with the previous list and adds up only the rest.
 */
export class RunningTotal<T> {
  private items: readonly T[] = [];
  /** sums[i]: the total over the first i elements. */
  private readonly sums: number[] = [0];

  constructor(private readonly valueOf: (item: T) => number) {}

  update(items: readonly T[]): void {
    const kept = sharedStart(this.items, items);
    this.sums.length = kept + 1;
    for (let i = kept; i < items.length; i++) this.sums.push(this.sums[i] + this.valueOf(items[i]));
    this.items = items;
  }

  /** The total over the first `count` elements of the last list given. */
  total(count = this.items.length): number {
    return this.sums[count];
  }
}
