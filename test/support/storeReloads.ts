import type { SessionStore } from '../../src/core/ports/sessionStore';
import { openStore } from '../../src/node/store';

/** Writes go to disk when the store is closed (a reload), or when it needs room for another database. */
const STORE_OPTIONS = { debounceMs: 60_000 };

/**
 * One store on disk shared by generated cases that run side by side, and reloads of it: a case that
 * wants to resume from disk waits until every case still running wants to too (or has ended); then
 * the store is closed (everything written to its files) and opened again from them, and each case
 * resumes its session from the new one. One reload serves them all, which keeps hundreds of cases
 * (each resuming several times) within seconds; a case run alone reloads at once.
 */
export class StoreReloads {
  private running = 0;
  private waiting: Array<{ resolve(store: SessionStore): void; reject(error: unknown): void }> = [];
  private reloading = false;
  reloadCount = 0;

  private constructor(
    private readonly folder: string,
    private current: SessionStore,
  ) {}

  static async open(folder: string): Promise<StoreReloads> {
    return new StoreReloads(folder, await openStore(folder, STORE_OPTIONS));
  }

  get store(): SessionStore {
    return this.current;
  }

  /** Runs a case; its end lets the others reload without it. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.maybeReload();
    }
  }

  /** The store opened again from its files, once every running case asked for it. */
  reload(): Promise<SessionStore> {
    const next = new Promise<SessionStore>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.maybeReload();
    return next;
  }

  private maybeReload(): void {
    if (this.reloading || this.waiting.length === 0 || this.waiting.length < this.running) return;
    this.reloading = true;
    const waiting = this.waiting.splice(0);
    void (async () => {
      await this.current.close();
      this.current = await openStore(this.folder, STORE_OPTIONS);
      this.reloadCount++;
    })().then(
      () => {
        this.reloading = false;
        for (const w of waiting) w.resolve(this.current);
        this.maybeReload();
      },
      (error: unknown) => {
        this.reloading = false;
        for (const w of waiting) w.reject(error);
      },
    );
  }

  close(): Promise<void> {
    return this.current.close();
  }
}
