/**
 * The coarsest step of the modification times of common file systems (FAT keeps even seconds;
 * HFS+ and many network shares whole seconds): two changes within one step can leave the same time.
 */
export const TIME_STEP_MS = 2000;

/**
 * Whether a file (or folder) whose time read `mtimeMs` when it was looked at, at `seenAt` (this
 * machine's clock), could change again without its time moving: a change in the same step as the
 * last one leaves the time as it is. Such a time tells nothing later; only the bytes (or names) do.
 */
export function timeMayHideChange(mtimeMs: number, seenAt: number): boolean {
  return mtimeMs >= seenAt - TIME_STEP_MS;
}
