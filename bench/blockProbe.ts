/**
 * Runs `work` while a probe that re-arms itself with setImmediate measures the longest stretch the
 * event loop went without a turn (on a loaded machine it includes time spent waiting for a CPU).
 */
export async function withBlockProbe<T>(work: () => Promise<T> | T): Promise<{ result: T; blockMs: number }> {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const result = await work();
    longest = Math.max(longest, performance.now() - last);
    return { result, blockMs: Math.round(longest * 10) / 10 };
  } finally {
    running = false;
  }
}
