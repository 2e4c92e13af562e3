/**
 * Opens of the session run one after another: settings changes fire several in a row, and an older
 * open finishing last must not replace (or detach) the session a newer one set up. Reopens for
 * changed settings or keys coalesce: one already queued reads the settings when it starts, so a
 * burst reopens once, and changes made while reopens are held reopen once when the hold ends.
 */
export class OpenQueue {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private reopenQueued = false;
  private holds = 0;
  private reopenWanted = false;
  /** A reopen queued or running: the next use of the session waits for it. */
  reopening?: Promise<void>;

  /** Opens waiting in the queue (not the one running). */
  get waiting(): number {
    return this.queued;
  }

  /** Runs `open` once those queued before it have ended. */
  enqueue<T>(open: () => Promise<T>): Promise<T> {
    this.queued++;
    const next = this.tail.then(() => {
      this.queued--;
      return open();
    });
    this.tail = next.then(() => undefined, () => undefined);
    return next;
  }

  /** Queues `reopen` unless one is queued already or reopens are held; true when it was queued. */
  reopen(reopen: () => Promise<void>): boolean {
    if (this.holds > 0) {
      this.reopenWanted = true;
      return false;
    }
    if (this.reopenQueued) return false;
    this.reopenQueued = true;
    const done = this.enqueue(async () => {
      this.reopenQueued = false;
      await reopen();
    }).then(() => undefined, () => undefined);
    this.reopening = done;
    void done.then(() => {
      if (this.reopening === done) this.reopening = undefined;
    });
    return true;
  }

  /** Runs `change` with reopens held; `reopen` runs once at its end when one was asked for meanwhile. */
  async holdingReopens<T>(change: () => Promise<T>, reopen: () => void): Promise<T> {
    this.holds++;
    try {
      return await change();
    } finally {
      if (--this.holds === 0 && this.reopenWanted) {
        this.reopenWanted = false;
        reopen();
      }
    }
  }
}
