/**
 * Resolves on the event loop's next turn. Long work awaits it between slices so the extension
 * host keeps answering (timers, UI messages) while a large input is handled.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
