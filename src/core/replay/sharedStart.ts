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
 * Running totals of a few per-element values over a list that changes request by request:
 * `update` keeps the totals of the start shared with the previous list and adds up only the rest.
 */
export class RunningTotals<T> {
  private items: readonly T[] = [];
  /** sums[i * width + k]: the total of value k over the first i elements. */
  private readonly sums: number[];
  private readonly row: number[];

  /** `valuesOf` writes an element's `width` values into `row` (zeroed before each call). */
  constructor(private readonly width: number, private readonly valuesOf: (item: T, row: number[]) => void) {
    this.sums = new Array<number>(width).fill(0);
    this.row = new Array<number>(width).fill(0);
  }

  update(items: readonly T[]): void {
    const kept = sharedStart(this.items, items);
    const w = this.width;
    this.sums.length = (kept + 1) * w;
    for (let i = kept; i < items.length; i++) {
      this.row.fill(0);
      this.valuesOf(items[i], this.row);
      for (let k = 0; k < w; k++) this.sums.push(this.sums[i * w + k] + this.row[k]);
    }
    this.items = items;
  }

  /** The total of value `k` over the first `count` elements of the last list given. */
  total(k: number, count = this.items.length): number {
    return this.sums[count * this.width + k];
  }
}

/** A running total of one per-element value (see RunningTotals). */
export class RunningTotal<T> {
  private readonly totals: RunningTotals<T>;

  constructor(valueOf: (item: T) => number) {
    this.totals = new RunningTotals<T>(1, (item, row) => {
      row[0] = valueOf(item);
    });
  }

  update(items: readonly T[]): void {
    this.totals.update(items);
  }

  /** The total over the first `count` elements of the last list given. */
  total(count?: number): number {
    return this.totals.total(0, count);
  }
}
