import { promises as fsp } from 'fs';
import { join, relative } from 'path';
import { writeAtomically, type WriteFs } from './atomicFile';

interface Passed {
  size: number;
  mtimeMs: number;
}

/**
 * A file is recorded only when it has not changed for this long before its check: file times are
 * coarse (a clock tick on Linux, 2 s on FAT), so a write soon after another can keep the same
 * mtime. A change after a recorded check always moves the mtime past the recorded one.
 */
const SETTLED_MS = 3_000;

/** Files listed at most, the least recently checked dropped first. */
const MAX_ENTRIES = 20_000;

/**
 * Files that passed the integrity check (`PRAGMA quick_check`), by size and modification time,
 * kept in `index/checked.json` across restarts: a file unchanged since it passed is not checked again
 * (checking reads every page: about 40 ms per MB, seconds for a long session). A file changed
 * in any way that moves its size or mtime is checked again. Losing this list costs only checks.
 */
export class CheckedFiles {
  private readonly passed = new Map<string, Passed>();
  private loading?: Promise<void>;
  private changed = false;

  constructor(private readonly root: string, private readonly fs: WriteFs, private readonly writer: string, private readonly writable: boolean) {}

  private get path(): string {
    return join(this.root, 'index', 'checked.json');
  }

  private key(path: string): string {
    return relative(this.root, path);
  }

  private load(): Promise<void> {
    this.loading ??= fsp.readFile(this.path, 'utf8').then(
      (text) => {
        const stored = JSON.parse(text) as Record<string, Passed>;
        for (const [key, value] of Object.entries(stored)) if (!this.passed.has(key) && typeof value?.size === 'number' && typeof value.mtimeMs === 'number') this.passed.set(key, value);
      },
      () => undefined, // none yet, or unreadable: every file is checked
    ).catch(() => undefined);
    return this.loading;
  }

  async unchangedSincePassed(path: string, size: number, mtimeMs: number): Promise<boolean> {
    await this.load();
    const entry = this.passed.get(this.key(path));
    return entry !== undefined && entry.size === size && entry.mtimeMs === mtimeMs;
  }

  record(path: string, size: number, mtimeMs: number): void {
    if (Date.now() - mtimeMs < SETTLED_MS) return; // checked again next time, once settled
    const key = this.key(path);
    this.passed.delete(key);
    this.passed.set(key, { size, mtimeMs });
    if (this.passed.size > MAX_ENTRIES) this.passed.delete(this.passed.keys().next().value!);
    this.changed = true;
  }

  forget(path: string): void {
    if (this.passed.delete(this.key(path))) this.changed = true;
  }

  /** Writes the list when it changed (another window's entries read meanwhile are kept). */
  async save(): Promise<void> {
    if (!this.changed || !this.writable) return;
    this.changed = false;
    await this.load();
    try {
      await writeAtomically(this.fs, this.path, Buffer.from(JSON.stringify(Object.fromEntries(this.passed))), this.writer);
    } catch {
      this.changed = true; // tried again at the next save; meanwhile files are only checked again
    }
  }
}
