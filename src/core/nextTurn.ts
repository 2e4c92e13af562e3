/** Runs a callback on a later turn of the event loop, after pending I/O and timers had theirs. */
export type TurnScheduler = (run: () => void) => void;

// A timer is the portable way to yield; Node entry points install setImmediate (see node/usePlatform),
// which yields without a timer's minimum delay.
let schedule: TurnScheduler = (run) => setTimeout(run, 0);

export function useTurnScheduler(scheduler: TurnScheduler): void {
  schedule = scheduler;
}

/**
 * Resolves on the event loop's next turn. Long work awaits it between slices so the extension
 * host keeps answering (timers, UI messages) while a large input is handled.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => schedule(resolve));
}
