/**
 * The coarsest step of the modification times of common file systems (FAT keeps even seconds;
 * HFS+, ext3 and many network shares whole seconds): two changes within one step can leave the
 * same time. Such file systems give whole seconds.
 */
export const COARSE_TIME_STEP_MS = 2000;

/**
 * A time with a part of a second comes from a file system that keeps at least milliseconds; its
 * clock moves in ticks of at most ~16 ms (Linux, Windows), well within this.
 */
export const FINE_TIME_STEP_MS = 100;

/**
 * Whether a file (or folder) whose time read `mtimeMs` when it was looked at, at `seenAt` (this
 * machine's clock), could change again without its time moving: a change in the same step as the
 * last one leaves the time as it is. Such a time tells nothing later; only the bytes (or names) do.
 */
export function timeMayHideChange(mtimeMs: number, seenAt: number): boolean {
  const step = Number.isInteger(mtimeMs / 1000) ? COARSE_TIME_STEP_MS : FINE_TIME_STEP_MS;
  return mtimeMs >= seenAt - step;
}
