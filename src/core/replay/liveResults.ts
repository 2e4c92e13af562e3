/** What the removed-result check reads of one message. */
export interface ResultFacts {
  /** The call whose whole result this message is. */
  call?: string;
  /** Result references the message's text carries. */
  refs: string[];
}

/**
 * The tool results of the request being checked: which are there whole, and which removed ones a
 * reference in the request still reaches. Kept up to date from the messages that leave and come
 * with each request, so a request costs what it changed, not what it carries.
 */
export class LiveResults {
  private readonly whole = new Map<string, number>();
  private readonly refs = new Map<string, number>();
  /** Per call: how many distinct references in the request reach its stored result. */
  private readonly reach = new Map<string, number>();
  private reachableRemoved = 0;

  /** `callReachedBy`: the call whose stored result a reference opens, undefined when it opens none. */
  constructor(private readonly callReachedBy: (ref: string) => string | undefined) {}

  leave(m: ResultFacts): void {
    if (m.call) this.removeWhole(m.call);
    for (const ref of m.refs) {
      if (!countDown(this.refs, ref)) continue;
      const call = this.callReachedBy(ref);
      if (call && countDown(this.reach, call) && !this.whole.has(call)) this.reachableRemoved--;
    }
  }

  come(m: ResultFacts): void {
    if (m.call) this.addWhole(m.call);
    for (const ref of m.refs) {
      if (!countUp(this.refs, ref)) continue;
      const call = this.callReachedBy(ref);
      if (call && countUp(this.reach, call) && !this.whole.has(call)) this.reachableRemoved++;
    }
  }

  /** How many distinct calls have their whole result in the request. */
  get wholeCount(): number {
    return this.whole.size;
  }

  /** How many calls whose result is not in the request a reference in it reaches. */
  get reachableCount(): number {
    return this.reachableRemoved;
  }

  hasWhole(call: string): boolean {
    return this.whole.has(call);
  }

  /** The call's result is not in the request, and a reference in it reaches the stored result. */
  reaches(call: string): boolean {
    return this.reach.has(call) && !this.whole.has(call);
  }

  private addWhole(call: string): void {
    if (countUp(this.whole, call) && this.reach.has(call)) this.reachableRemoved--;
  }

  private removeWhole(call: string): void {
    if (countDown(this.whole, call) && this.reach.has(call)) this.reachableRemoved++;
  }
}

/** Adds one occurrence; true when the key was not there before. */
export function countUp(counts: Map<string, number>, key: string): boolean {
  const n = counts.get(key) ?? 0;
  counts.set(key, n + 1);
  return n === 0;
}

/** Removes one occurrence; true when that was the last one (the key leaves the map). */
export function countDown(counts: Map<string, number>, key: string): boolean {
  const n = counts.get(key) ?? 0;
  if (n <= 1) {
    counts.delete(key);
    return n === 1;
  }
  counts.set(key, n - 1);
  return false;
}
