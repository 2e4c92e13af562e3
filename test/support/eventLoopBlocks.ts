import { performance } from 'perf_hooks';

export interface BlockReport {
  /** The longest stretch, in ms, during which no timer could run. */
  longestBlockMs: number;
  /** Timer turns observed (0 means the work never let the loop run). */
  turns: number;
}

/**
 * Measures how long the event loop stays blocked while `work` runs: a 1 ms timer re-arms itself
 * and records the largest gap between two of its runs (less the 1 ms it asked for).
 */
export async function measureBlocking<T>(work: () => Promise<T>): Promise<{ result: T } & BlockReport> {
  let last = performance.now();
  let longest = 0;
  let turns = 0;
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
    turns++;
    if (running) timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  try {
    last = performance.now();
    const result = await work();
    // The last stretch of synchronous work ends at the final await; measure up to here.
    longest = Math.max(longest, performance.now() - last - 1);
    return { result, longestBlockMs: Math.max(0, longest), turns };
  } finally {
    running = false;
    if (timer) clearTimeout(timer);
  }
}
