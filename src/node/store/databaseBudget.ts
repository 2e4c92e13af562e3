/**
 * sql.js keeps every open database in its own in-memory file system, which has about 4,000
 * handles; memory grows with each one too. Every database the store opens counts against one
 * bound: when it is reached, the least recently used database that can be let go is closed first
 * (a cached read, then a saved file of this window's own).
 */
export const DEFAULT_MAX_OPEN_DATABASES = 128;

export class DatabaseBudget {
  private count = 0;
  private highest = 0;
  private readonly evictors: Array<() => boolean> = [];

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

  /** Makes room for one more database, then counts it. */
  acquire(): void {
    while (this.count >= this.max && this.evictors.some((evict) => evict()));
    this.count++;
    this.highest = Math.max(this.highest, this.count);
  }

  release(): void {
    this.count--;
  }
}
