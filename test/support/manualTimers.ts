import type { SaveTimers } from '../../src/node/store/files/flusher';

/**
 * A clock that never runs by itself: a test sees each timer scheduled on it (`next`) and runs the
 * pending ones when it chooses (`fire`), so nothing waits on the wall clock.
 */
export class ManualTimers implements SaveTimers {
  private readonly pending = new Map<number, { callback: () => void; ms: number }>();
  private waiters: Array<(ms: number) => void> = [];
  private lastId = 0;

  setTimeout(callback: () => void, ms: number): number {
    const id = ++this.lastId;
    this.pending.set(id, { callback, ms });
    for (const waiter of this.waiters.splice(0)) waiter(ms);
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** The delay of a timer pending now, or of the next one scheduled. */
  next(): Promise<number> {
    const [first] = this.pending.values();
    if (first) return Promise.resolve(first.ms);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Runs every pending timer now, as if its time had come. */
  fire(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const timer of due) timer.callback();
  }
}
