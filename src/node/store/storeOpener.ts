/**
 * Opens the store once and shares it; a failed open (a full disk while the window starts) is not
 * kept, so the next caller tries again instead of finding the store broken for the whole window.
 */
export class StoreOpener<T> {
  private opening?: Promise<T>;

  constructor(private readonly open: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.opening) {
      const attempt = this.open();
      this.opening = attempt;
      attempt.catch(() => {
        if (this.opening === attempt) this.opening = undefined;
      });
    }
    return this.opening;
  }

  /** The store if it opened. */
  async opened(): Promise<T | undefined> {
    return this.opening?.catch(() => undefined);
  }
}
