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
 * Running totals of a per-element vector over a list that changes request by request: `update`
 * keeps the totals of the start shared with the previous list and adds up only the rest.
 */
export class RunningTotals<T> {
  private items: readonly T[] = [];
  /** sums[i * width + k]: total of component k over the first i elements. */
  private sums: number[];

  constructor(private readonly width: number, private readonly valueOf: (item: T, into: number[], at: number) => void) {
    this.sums = new Array<number>(width).fill(0);
  }

  update(items: readonly T[]): void {
    const { width } = this;
    const kept = sharedStart(this.items, items);
    this.sums.length = (kept + 1) * width;
    for (let i = kept; i < items.length; i++) {
      const at = (i + 1) * width;
      for (let k = 0; k < width; k++) this.sums.push(this.sums[at - width + k]);
      this.valueOf(items[i], this.sums, at);
    }
    this.items = items;
  }

  /** Total of component `k` over the first `count` elements of the last list given. */
  total(k: number, count = this.items.length): number {
    return this.sums[count * this.width + k];
  }
}
