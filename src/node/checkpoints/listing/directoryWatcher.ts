import { type FSWatcher, mkdtempSync, rmSync, unlinkSync, watch, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

/** How long a barrier may take before the watcher is not trusted for this listing (a full walk is made instead). */
const BARRIER_TIMEOUT_MS = 2000;

/**
 * Watches folders one at a time (never recursively) and proves when every change made before a
 * moment has been reported. On Linux every `fs.watch` of a process is a watch on the event loop's
 * one inotify queue, which the kernel fills in the order changes happen: a file made and removed
 * in a folder of our own after a command ended (`barrier`) is reported after every change the
 * command made in a watched folder. Elsewhere (other watch APIs give no such order) it is not used.
 */
export class DirectoryWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private barrierFolder?: string;
  private barrierWatcher?: FSWatcher;
  private readonly waiting = new Map<string, () => void>();
  private barriers = 0;
  /** Why the watcher cannot be trusted any more (a watch failed, the watcher reported an error); then every listing walks. */
  broken?: string;
  /** Events reported since last taken (the kernel's queue drops events past its length without telling). */
  private events = 0;

  static get supported(): boolean {
    return process.platform === 'linux';
  }

  constructor(private readonly onEvent: (folder: string, name: string | undefined) => void, private readonly maxFolders: number) {}

  get size(): number {
    return this.watchers.size;
  }

  /**
   * Watches `folder`; false when it cannot (gone, or the watcher broke: see `broken`). `optional`:
   * past the bound, it is simply not watched. `fresh`: watched anew even if watched already.
   */
  watch(folder: string, optional = false, fresh = false): boolean {
    if (this.broken) return false;
    const existing = this.watchers.get(folder);
    if (existing && !fresh) return true;
    if (existing) {
      // A watch kept under this path may be on a folder since removed (another took its name, perhaps its inode number).
      existing.close();
      this.watchers.delete(folder);
    }
    if (this.watchers.size >= this.maxFolders) {
      if (optional) return false;
      this.break(`more than ${this.maxFolders.toLocaleString('en-US')} folders to watch`);
      return false;
    }
    try {
      const watcher = watch(folder, { persistent: false }, (_type, name) => {
        this.events++;
        this.onEvent(folder, name === null ? undefined : String(name));
      });
      watcher.on('error', (error) => this.break(`the file watcher failed: ${error.message}`));
      this.watchers.set(folder, watcher);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.break(`a folder could not be watched: ${(error as Error).message}`);
      return false;
    }
  }

  /** Stops watching `folder` and every folder under it. */
  unwatchTree(folder: string, separator: string): void {
    const prefix = folder + separator;
    for (const [path, watcher] of this.watchers) {
      if (path === folder || path.startsWith(prefix)) {
        watcher.close();
        this.watchers.delete(path);
      }
    }
  }

  /** The number of events reported since the last call. */
  takeEventCount(): number {
    const count = this.events;
    this.events = 0;
    return count;
  }

  /**
   * Resolves true once every change made before the call has been reported; false when the
   * watcher is broken or the proof did not come in time (then the caller lists by walking).
   */
  async barrier(): Promise<boolean> {
    if (this.broken) return false;
    try {
      if (!this.barrierFolder) {
        this.barrierFolder = mkdtempSync(join(tmpdir(), 'tally-watch-'));
        this.barrierWatcher = watch(this.barrierFolder, { persistent: false }, (_type, name) => {
          const done = name === null ? undefined : this.waiting.get(String(name));
          if (done) done();
        });
        this.barrierWatcher.on('error', (error) => this.break(`the file watcher failed: ${error.message}`));
      }
      const name = `b${this.barriers++}`;
      const arrived = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          this.waiting.delete(name);
          resolve(false);
        }, BARRIER_TIMEOUT_MS); // not unref'd: the proof is awaited, so the process waits for it
        this.waiting.set(name, () => {
          clearTimeout(timer);
          this.waiting.delete(name);
          resolve(true);
        });
      });
      const path = join(this.barrierFolder, name);
      writeFileSync(path, '');
      unlinkSync(path);
      return await arrived;
    } catch (error) {
      this.break(`the file watcher could not be checked: ${(error as Error).message}`);
      return false;
    }
  }

  private break(reason: string): void {
    this.broken ??= reason;
    this.closeWatches();
  }

  private closeWatches(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  close(): void {
    this.closeWatches();
    this.barrierWatcher?.close();
    this.barrierWatcher = undefined;
    if (this.barrierFolder) rmSync(this.barrierFolder, { recursive: true, force: true });
    this.barrierFolder = undefined;
  }
}
