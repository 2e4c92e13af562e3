/**
 * Counts the event loop's turns: an immediate re-queues itself, so it runs once per turn. Work done
 * in one synchronous block gives no turns at all; work split into slices with a turn between them
 * gives at least one per slice. A count, not a time: machine load does not change it (the timing
 * itself is measured in bench/reliability.bench.ts).
 */
export function turnTicker(): { now(): number; stop(): void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => (running = false) };
}

/** The event loop's turns while `work` runs. */
export async function countTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  const ticker = turnTicker();
  try {
    const result = await work();
    return { result, turns: ticker.now() };
  } finally {
    ticker.stop();
  }
}
