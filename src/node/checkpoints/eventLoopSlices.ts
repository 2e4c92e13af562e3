/**
 * Synchronous work cut into slices: `turnIfDue` lets the event loop turn (a macrotask, not a
 * microtask) once the current slice has run `sliceMs`, so a long run of short synchronous calls
 * never holds the host for longer than a slice.
 */
export class EventLoopSlices {
  private sliceEnds = 0;

  constructor(private readonly sliceMs = 8) {}

  async turnIfDue(): Promise<void> {
    const now = Date.now();
    if (now <= this.sliceEnds) return;
    if (this.sliceEnds) await new Promise((resolve) => setImmediate(resolve));
    this.sliceEnds = Date.now() + this.sliceMs;
  }
}
