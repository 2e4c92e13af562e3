import { nextTurn } from '../nextTurn';

/**
 * Messages a pass over a long history reads between two pauses. A summary's facts are read from
 * every message it replaces (50,000 at a time in a long session): the pass pauses every this many,
 * and, run in slices, gives the event loop a turn at each pause.
 */
export const STEP_MESSAGES = 1_000;

/** Runs a pass that pauses (yields) to its end at once, for callers that need its result now. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs a pass that pauses (yields) with a turn of the event loop at each pause. */
export async function runStepsInSlices<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await nextTurn();
  }
}
