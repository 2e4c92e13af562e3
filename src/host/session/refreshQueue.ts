/**
 * One refresh of a view at a time. A refresh asked for while one runs does not start beside it
 * (the two would run the same reads at once, as the webview's "ready" and the session's opening
 * did): it waits, and every request made meanwhile is answered by the one refresh that follows,
 * whole when any of them asked for the whole state.
 */
export class RefreshQueue {
  private last: Promise<void> = Promise.resolve();
  private queued?: Promise<void>;
  private queuedWhole = false;

  /** `send` must not reject: a view's refresh reports its own errors. */
  constructor(private readonly send: (whole: boolean) => Promise<void>) {}

  request(whole = false): Promise<void> {
    this.queuedWhole ||= whole;
    if (this.queued) return this.queued;
    const next = this.last.then(() => {
      this.queued = undefined;
      const asWhole = this.queuedWhole;
      this.queuedWhole = false;
      return this.send(asWhole);
    });
    this.queued = next;
    this.last = next.catch(() => undefined);
    return next;
  }
}
