import { promises as fsp } from 'fs';
import { nextTurn } from '../../../core/nextTurn';
import { basename, dirname, join } from 'path';
import type { Database, SqlJsStatic } from 'sql.js';
import type { CheckedFiles } from './checkedFiles';
import type { DatabaseBudget } from './databaseBudget';
import type { StoreProblems } from './storeProblems';
import { migrationsFrom, SCHEMA_VERSION } from '../sql/schema';
import { tuneConnection } from '../sql/connection';
import { errorText, isDamagedFile } from './storeErrors';

interface Cached {
  mtimeMs: number;
  size: number;
  db: Database;
}

/**
 * `check: false` skips the integrity check, for files that are derived data, rebuilt or done
 * without (search files): damage then shows as a query's error, where the read sets the file aside.
 */
export interface OpenOptions {
  check?: boolean;
}

/** The outcome of opening a file: its database, or why there is none. */
export type Opened = { db: Database } | { missing: true } | { unusable: true } | { failed: unknown };

/**
 * Files opened for reading (other windows' files, and this window's saved ones), checked once
 * when opened and kept while they do not change on disk, least recently used first out. A file
 * that does not open as SQLite or fails `PRAGMA quick_check` (or, opened unchecked, fails a read
 * as damaged) is set aside as corrupt; any other
 * failure (out of memory, too many handles, no permission) leaves the file alone, is reported
 * with its message, and is tried again on the next read.
 */
export class OpenDatabases {
  private readonly cache = new Map<string, Cached>();
  private readonly newerSchema = new Set<string>();
  /** Messages of read failures already reported, so that a failure on every file is reported once. */
  private readonly failing = new Set<string>();
  /** Files set aside in this run, and where they went. */
  private readonly setAsideTo = new Map<string, string>();

  constructor(
    private readonly SQL: SqlJsStatic,
    private readonly budget: DatabaseBudget,
    private readonly problems: StoreProblems,
    private readonly now: () => number,
    private readonly checked?: CheckedFiles,
    /** Told when a file is found gone (another window merged it away) or is set aside as damaged. */
    private readonly onGone?: (path: string) => void,
  ) {
    budget.addEvictor(() => this.evictOldest());
  }

  private evictOldest(): boolean {
    const oldest = this.cache.keys().next();
    if (oldest.done) return false;
    this.forget(oldest.value);
    return true;
  }

  /**
   * Reads the checked database of `path` (kept open for later reads) with `visit`, called in the
   * same turn the database is found or opened: a database handed out and used after an await could
   * have been closed meanwhile, to make room for a concurrent read.
   */
  async read<T>(path: string, visit: (db: Database) => T, options: OpenOptions = {}): Promise<T | undefined> {
    let stat;
    try {
      stat = await fsp.stat(path);
    } catch {
      this.onGone?.(path);
      return undefined;
    }
    const cached = this.cache.get(path);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) {
      this.cache.delete(path); // most recently used goes last
      this.cache.set(path, cached);
      return this.visitChecked(path, cached.db, visit, options);
    }
    this.forget(path);
    const opened = await this.open(path, options);
    if (!('db' in opened)) return undefined;
    // Opened meanwhile by a concurrent read, which may be using it: keep that copy, close ours.
    const meanwhile = this.cache.get(path);
    if (meanwhile && meanwhile.mtimeMs === stat.mtimeMs && meanwhile.size === stat.size) {
      this.close(opened.db);
      return this.visitChecked(path, meanwhile.db, visit, options);
    }
    this.forget(path);
    this.cache.set(path, { mtimeMs: stat.mtimeMs, size: stat.size, db: opened.db });
    return this.visitChecked(path, opened.db, visit, options);
  }

  /**
   * Runs `visit`; a file opened without its integrity check whose damage shows in the middle of a
   * query is closed and set aside then, and the read finds nothing in it (returns a promise only then).
   */
  private visitChecked<T>(path: string, db: Database, visit: (db: Database) => T, options: OpenOptions): T | Promise<undefined> {
    if (options.check !== false) return visit(db);
    try {
      return visit(db);
    } catch (error) {
      if (!isDamagedFile(error)) throw error;
      this.forget(path);
      return this.setAside(path, error).then(() => undefined);
    }
  }

  /** Reads one file's rows and lets its database go (for files read once: stored results). */
  async once<T>(path: string, read: (db: Database) => T): Promise<T | undefined> {
    const cached = this.cache.get(path);
    if (cached) {
      const stat = await fsp.stat(path).catch(() => undefined);
      const fresh = this.cache.get(path);
      if (stat && fresh && fresh.mtimeMs === stat.mtimeMs && fresh.size === stat.size) return read(fresh.db);
    }
    // Opened for this read alone and closed after it: never shared, so no other read can close it.
    const opened = await this.open(path);
    if (!('db' in opened)) return undefined;
    try {
      return read(opened.db);
    } finally {
      this.close(opened.db);
    }
  }

  /**
   * Opens and checks `path` without caching it; the caller owns the database and must close it
   * and call `budget.release()`.
   */
  async open(path: string, options: OpenOptions = {}): Promise<Opened> {
    let bytes: Uint8Array;
    let stat: { size: number; mtimeMs: number };
    try {
      stat = await fsp.stat(path);
      bytes = await fsp.readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        this.onGone?.(path);
        return { missing: true };
      }
      this.readFailed(path, error);
      return { failed: error };
    }
    let db: Database | undefined;
    await this.budget.acquire();
    try {
      db = new this.SQL.Database(bytes);
      tuneConnection(db);
      const version = Number(db.exec('PRAGMA user_version')[0]?.values[0]?.[0] ?? 0);
      if (version > SCHEMA_VERSION) {
        this.close(db);
        if (!this.newerSchema.has(path)) {
          this.newerSchema.add(path);
          this.problems.report({ file: path, kind: 'newer-schema', message: `schema version ${version} is newer than ${SCHEMA_VERSION}; left untouched` });
        }
        return { unusable: true };
      }
      // Reads every page of the file's b-trees (about 40 ms per MB on this machine): a damaged page
      // is found now, where the file can be set aside, not later in the middle of a query. A file
      // that passed before and has not changed since (same size and mtime) is not checked again.
      if (options.check === false) await nextTurn(); // loading the image was a slice; the caller's query is the next
      const skipCheck = options.check === false || (stat.size === bytes.length && (await this.checked?.unchangedSincePassed(path, stat.size, stat.mtimeMs)));
      if (!skipCheck) {
        await nextTurn(); // loading the image and the check are each a slice of their own (tens of ms for a 1 MB file, the first cold)
        const check = String(db.exec('PRAGMA quick_check')[0]?.values[0]?.[0] ?? 'no result');
        if (check !== 'ok') throw new Error(`integrity check failed: ${check}`);
        if (stat.size === bytes.length) this.checked?.record(path, stat.size, stat.mtimeMs);
      }
      for (const m of migrationsFrom(version)) db.run(m.sql);
    } catch (error) {
      if (db) this.close(db);
      else this.budget.release();
      if (!isDamagedFile(error)) {
        this.readFailed(path, error);
        return { failed: error };
      }
      await this.setAside(path, error);
      return { unusable: true };
    }
    this.failing.clear();
    return { db };
  }

  close(db: Database): void {
    db.close();
    this.budget.release();
  }

  forget(path: string): void {
    const cached = this.cache.get(path);
    if (!cached) return;
    this.cache.delete(path);
    this.close(cached.db);
  }

  closeAll(): void {
    for (const path of [...this.cache.keys()]) this.forget(path);
  }

  isNewerSchema(path: string): boolean {
    return this.newerSchema.has(path);
  }

  private readFailed(path: string, error: unknown): void {
    const message = errorText(error);
    if (this.failing.has(message)) return;
    this.failing.add(message);
    this.problems.report({ file: path, kind: 'read-failed', message });
  }

  private async setAside(path: string, error: unknown): Promise<void> {
    const movedTo = `${path}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      await fsp.rename(path, movedTo);
      this.onGone?.(path);
      this.checked?.forget(path);
      this.setAsideTo.set(path, movedTo);
      this.problems.report({ file: path, kind: 'corrupt', message: errorText(error), movedTo });
    } catch (renameError) {
      this.problems.report({ file: path, kind: 'read-failed', message: `${errorText(error)} (could not be set aside: ${errorText(renameError)})` });
    }
  }

  /** Where `path` was set aside as damaged (in this run or an earlier one), if it was. */
  async setAsideCopy(path: string): Promise<string | undefined> {
    const known = this.setAsideTo.get(path);
    if (known) return known;
    const prefix = `${basename(path)}.corrupt-`;
    const names = await fsp.readdir(dirname(path)).catch(() => [] as string[]);
    const found = names.filter((n) => n.startsWith(prefix)).sort().pop();
    return found && join(dirname(path), found);
  }
}
