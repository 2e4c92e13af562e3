import { dirname } from 'path';
import { EventLoopSlices } from '../eventLoopSlices';
import type { GitRepository } from '../git/gitRepository';
import type { IgnoreRules } from '../git/ignoreRules';
import { DirectoryWatcher } from './directoryWatcher';
import { childOf, FolderListing } from './folderListing';
import type { FolderLimits, FolderRefresh, KeptFolder } from './listedFiles';

/**
 * More events than this between two refreshes and the folder is walked instead: the kernel's queue
 * (16,384 events by default, shared by every watcher of the process) drops events past its length
 * without telling, so only a count well below it proves none was dropped.
 */
const MAX_EVENTS_TRUSTED = 4096;

/**
 * One workspace folder's files, listed once and kept between commands. Where a watcher can be
 * trusted (see DirectoryWatcher) each refresh waits for the proof that every change so far was
 * reported and states only what changed; elsewhere each refresh walks the folder, reading a
 * folder's names again only when its inode or time moved, stating every file.
 */
export class TrackedFolder extends FolderListing {
  private readonly dirty = new Map<string, Set<string> | 'all'>();

  constructor(
    folder: string,
    private readonly limits: FolderLimits,
    repository: GitRepository | undefined,
    private readonly slices = new EventLoopSlices(),
    now: () => number = Date.now,
    useWatcher = DirectoryWatcher.supported,
  ) {
    super(folder, repository, now);
    if (useWatcher) this.watcher = new DirectoryWatcher((at, name) => this.noteEvent(at, name), limits.maxWatchedFolders);
  }

  /** Why changes are found by walking the whole folder each time, when they are. */
  get walkReason(): string | undefined {
    return this.watcher ? this.watcher.broken : 'no file watcher that reports changes in order here';
  }

  /** Brings the listing up to date: what changed since the last refresh. */
  async refresh(): Promise<FolderRefresh> {
    this.generation++;
    this.changes = [];
    this.ignoredChanged = [];
    const watcher = this.watcher;
    if (watcher && !watcher.broken && this.kept.size > 0 && (await watcher.barrier()) && watcher.takeEventCount() <= MAX_EVENTS_TRUSTED) {
      await this.applyEvents();
      if (!watcher.broken) return this.result('watcher', new Set());
    }
    return this.walk();
  }

  close(): void {
    this.watcher?.close();
  }

  private noteEvent(folder: string, name: string | undefined): void {
    const names = this.dirty.get(folder);
    if (names === 'all') return;
    if (name === undefined) this.dirty.set(folder, 'all');
    else if (names) names.add(name);
    else this.dirty.set(folder, new Set([name]));
  }

  /** Every folder listed again, from the top (a watcher set up on the way when there is one to trust). */
  private async walk(): Promise<FolderRefresh> {
    this.work.walks++;
    this.dirty.clear();
    this.listedThisWalk = 0;
    this.firstListing = this.kept.size === 0;
    const watching = Boolean(this.watcher && !this.watcher.broken);
    const budget = watching && this.kept.size === 0 ? this.limits.watchedListBudgetMs : this.limits.listBudgetMs;
    const deadline = Date.now() + budget;
    let stoppedBecause: string | undefined;
    const pending: Array<{ absolute: string; relative: string; rules: IgnoreRules }> = [{ absolute: this.folder, relative: '', rules: this.outerRules }];
    while (pending.length) {
      await this.slices.turnIfDue();
      if (Date.now() > deadline) {
        stoppedBecause = `listing the workspace took longer than ${budget} ms`;
        break;
      }
      if (this.listedThisWalk > this.limits.maxFiles) {
        stoppedBecause = `the workspace has more than ${this.limits.maxFiles.toLocaleString('en-US')} files`;
        break;
      }
      const at = pending.pop()!;
      const kept = this.visit(at.absolute, at.relative, at.rules, false);
      if (!kept) continue;
      for (const name of kept.folders) pending.push({ absolute: childOf(at.absolute, name), relative: kept.relative ? `${kept.relative}/${name}` : name, rules: kept.rules });
    }
    this.firstListing = false;
    const unlisted = new Set<string>();
    if (stoppedBecause) {
      for (const [path, kept] of this.kept) if (kept.listedAt !== this.generation) unlisted.add(path);
      for (const left of pending) unlisted.add(left.absolute);
      // A watcher set up over part of the folder tells nothing of the rest: walk from now on.
      if (watching && this.watcher) this.watcher.broken ??= stoppedBecause;
    }
    return this.result('walk', unlisted, stoppedBecause);
  }

  /**
   * Applies what the watcher reported since the last refresh: each named entry stated again; a
   * folder that appeared (or was replaced) is walked whole, and one whose .gitignore or
   * .gitattributes changed is listed again whole with its new rules.
   */
  private async applyEvents(): Promise<void> {
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const [folder, names] of dirty) {
      await this.slices.turnIfDue();
      const kept = this.kept.get(folder);
      if (!kept) {
        // An ignored folder's own entries changed; or a folder dropped since (its events are stale).
        const ignored = this.ignored.get(folder);
        if (ignored && ignored.stamp !== 'absent') this.ignoredChanged.push(ignored.relative);
        continue;
      }
      kept.trusted = false; // its names changed: a walk reads them again
      if (names === 'all' || names.has('.gitignore') || names.has('.gitattributes')) {
        if (names !== 'all') for (const name of names) if (this.kept.has(childOf(folder, name))) this.dropTree(childOf(folder, name));
        await this.walkTree(folder, kept.relative, this.parentRulesOf(folder));
        continue;
      }
      const prefix = kept.relative ? `${kept.relative}/` : '';
      for (const name of names) await this.applyEvent(folder, kept, name, prefix + name);
    }
  }

  private async applyEvent(folder: string, kept: KeptFolder, name: string, relative: string): Promise<void> {
    const absolute = childOf(folder, name);
    const seenAt = this.now();
    const stat = this.stat(absolute);
    // A folder named in an event of its parent was made, removed, moved or replaced (perhaps by one
    // under the same inode number, whose old watch is dead): it is listed and watched again whole.
    if (this.kept.has(absolute)) {
      this.dropTree(absolute);
      kept.folders = kept.folders.filter((n) => n !== name);
    }
    if (stat?.isDirectory()) {
      if (this.files.has(absolute)) {
        // A file replaced by a folder of the same name.
        this.forget(absolute, true);
        kept.files = kept.files.filter((n) => n !== name);
      }
      if (kept.rules.ignores(absolute, name, true)) {
        this.noteIgnored(absolute, `${relative}/`, name, false);
        return;
      }
      if (!this.kept.has(absolute)) {
        if (!kept.folders.includes(name)) kept.folders.push(name);
        await this.walkTree(absolute, relative, kept.rules);
      }
      return;
    }
    if (this.files.has(absolute) || stat?.isFile()) {
      if (stat?.isFile() && kept.rules.ignores(absolute, name, false)) {
        this.noteIgnored(absolute, relative, name, false);
        return;
      }
      const listed = this.updateFile(absolute, relative, true, { stat, seenAt });
      kept.files = kept.files.filter((n) => n !== name);
      if (listed) kept.files.push(name);
      return;
    }
    if (this.ignored.has(absolute)) this.noteIgnored(absolute, stat?.isDirectory() ? `${relative}/` : relative, name, false);
  }

  /** The rules a folder's parent passes down to it. */
  private parentRulesOf(folder: string): IgnoreRules {
    if (folder === this.folder) return this.outerRules;
    return this.kept.get(dirname(folder))?.rules ?? this.outerRules;
  }

  /** Walks a folder and everything under it, reading every name (a new folder, or one whose rules changed). */
  private async walkTree(absolute: string, relative: string, rules: IgnoreRules): Promise<void> {
    const pending = [{ absolute, relative, rules }];
    while (pending.length) {
      await this.slices.turnIfDue();
      const at = pending.pop()!;
      const kept = this.visit(at.absolute, at.relative, at.rules, true);
      if (!kept) continue;
      for (const name of kept.folders) pending.push({ absolute: childOf(at.absolute, name), relative: `${kept.relative ? `${kept.relative}/` : ''}${name}`, rules: kept.rules });
    }
  }
}
