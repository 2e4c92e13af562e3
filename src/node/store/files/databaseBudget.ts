/**
 * sql.js keeps every open database in its own in-memory file system, which has about 4,000
 * handles; memory grows with each one too. Every database the store opens counts against one
 * bound: when it is reached, the least recently used database that can be let go is closed first
 * (a cached read, then a saved file of this window's own). When every one left has unsaved
 * changes, they are saved first (the relief), then closed.
 */
export const DEFAULT_MAX_OPEN_DATABASES = 128;

export class DatabaseBudget {
  private count = 0;
  private highest = 0;
  private readonly evictors: Array<() => boolean> = [];
  private relief?: () => Promise<boolean>;
  /** The relief running now: acquirers under pressure at the same time share it. */
  private relieving?: Promise<boolean>;

  constructor(readonly max: number = DEFAULT_MAX_OPEN_DATABASES) {}

  /** Databases open now, and the most that were ever open at once. */
  get open(): number {
    return this.count;
  }

  get peak(): number {
    return this.highest;
  }

  /** `evict` closes one database it holds (calling `release`) and says whether it did. */
  addEvictor(evict: () => boolean): void {
    this.evictors.push(evict);
  }

  /**
   * `relieve` saves databases with unsaved changes so that evictors can close them, and says
   * whether it saved any. It must never acquire a database itself.
   */
  setRelief(relieve: () => Promise<boolean>): void {
    this.relief = relieve;
  }

  /**
   * Makes room for one more database, then counts it. Only when nothing can be saved (a folder
   * that cannot be written, every file held by a caller) does the count pass the bound.
   */
  async acquire(): Promise<void> {
    while (this.count >= this.max && !this.evictOne()) {
      if (!this.relief || !(await this.relieve())) break;
    }
    this.count++;
    this.highest = Math.max(this.highest, this.count);
  }

  release(): void {
    this.count--;
  }

  private evictOne(): boolean {
    return this.evictors.some((evict) => evict());
  }

  private relieve(): Promise<boolean> {
    if (!this.relieving) {
      const running = this.relief!().catch(() => false);
      this.relieving = running;
      void running.finally(() => {
        if (this.relieving === running) this.relieving = undefined;
      });
    }
    return this.relieving;
  }
}
