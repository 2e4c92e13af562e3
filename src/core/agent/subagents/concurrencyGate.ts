/** At most `limit()` holders at once; the rest wait in order. A waiter whose signal aborts leaves the queue. */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: () => number) {}

  get active(): number {
    return this.running;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new Error('cancelled');
    if (this.running >= Math.max(1, this.limit())) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = this.waiting.indexOf(go);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(new Error('cancelled'));
        };
        this.waiting.push(go);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    } else {
      this.running++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // A waiter takes the slot over directly, so no newcomer slips in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }
}
