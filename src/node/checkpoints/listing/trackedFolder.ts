import { lstatSync, readdirSync, statSync, type Stats } from 'fs';
import { dirname, join, sep } from 'path';
import type { GitRepository } from '../git/gitRepository';
import { IgnoreRules } from '../git/ignoreRules';
import { EventLoopSlices } from '../eventLoopSlices';
import { timeMayHideChange } from '../modificationTimes';
import { DirectoryWatcher } from './directoryWatcher';
import type { FolderChange, FolderLimits, FolderRefresh, IgnoredEntry, KeptFolder, ListedFile } from './folderListing';
import { folderRules, readAttributes, readSmall, stampOf } from './patternFiles';

/** Version-control folders: ignored, and not worth a note when they change (every git command does). */
const QUIET = new Set(['.git', '.hg', '.svn']);

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
 * folder's names again only when its inode or time moved, stating every file. Ignore rules apply
 * as git applies them (every .gitignore, the repository's exclude file); version-control folders
 * and node_modules are never listed.
 */
export class TrackedFolder {
  readonly files = new Map<string, ListedFile>();
  private readonly kept = new Map<string, KeptFolder>();
  private readonly ignored = new Map<string, IgnoredEntry>();
  private readonly dirty = new Map<string, Set<string> | 'all'>();
  private watcher?: DirectoryWatcher;
  private generation = 0;
  private changes: FolderChange[] = [];
  /** Files listed by the walk running now (its bound counts these). */
  private listedThisWalk = 0;
  /** The walk running now is the first: every file is new, none is a change. */
  private firstListing = false;
  private ignoredChanged: string[] = [];
  /** The rules from above the folder: the repository's exclude file and the .gitignore files between its root and the folder. */
  private readonly outerRules: IgnoreRules;
  /** Entries stated and folders read (counted for tests and benches). */
  readonly work = { foldersRead: 0, entriesStated: 0, walks: 0 };

  constructor(
    readonly folder: string,
    private readonly limits: FolderLimits,
    private readonly repository: GitRepository | undefined,
    private readonly slices = new EventLoopSlices(),
    private readonly now: () => number = Date.now,
    useWatcher = DirectoryWatcher.supported,
  ) {
    let rules = IgnoreRules.none;
    if (repository) {
      rules = rules.with(repository.root, repository.excludeText);
      const between: string[] = [];
      for (let at = dirname(folder); at.length >= repository.root.length && at.startsWith(repository.root); at = dirname(at)) {
        between.unshift(at);
        if (at === repository.root || dirname(at) === at) break;
      }
      for (const at of between) {
        rules = rules.with(at, readSmall(join(at, '.gitignore')));
        repository.conversions.setFile(at, readSmall(join(at, '.gitattributes')) || undefined);
      }
    }
    this.outerRules = rules;
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

  /** The refresh's outcome; a file changed twice within it (dropped with its folder, then listed again) is one change. */
  private result(how: FolderRefresh['how'], unlisted: ReadonlySet<string>, stoppedBecause?: string): FolderRefresh {
    const byPath = new Map<string, FolderChange>();
    for (const change of this.changes) {
      const first = byPath.get(change.absolute);
      if (!first) byPath.set(change.absolute, change);
      else byPath.set(change.absolute, { absolute: change.absolute, relative: change.relative, was: first.was, now: change.now });
    }
    const same = (a: ListedFile, b: ListedFile) => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
    const changes = [...byPath.values()].filter((c) => (c.was || c.now) && (c.unsure || !c.was || !c.now || !same(c.was, c.now)));
    return { changes, unlisted, stoppedBecause, ignoredChanged: [...new Set(this.ignoredChanged)], how };
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
      for (const name of kept.folders) pending.push({ absolute: join(at.absolute, name), relative: kept.relative ? `${kept.relative}/${name}` : name, rules: kept.rules });
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
   * Lists one folder: its names (kept ones when it did not move, unless `reread`), the rules in
   * force in it, and each file stated. Folders gone since are dropped with everything under them.
   * Returns the folder as kept, or undefined when it is not a folder now.
   */
  private visit(absolute: string, relative: string, parentRules: IgnoreRules, reread: boolean): KeptFolder | undefined {
    const isRoot = absolute === this.folder;
    const seenAt = this.now();
    // A workspace folder opened through a link is listed (the link is the user's own path); links inside it are not followed.
    const stat = this.stat(absolute, isRoot);
    let previous = this.kept.get(absolute);
    if (!stat?.isDirectory()) {
      if (previous) this.dropTree(absolute);
      return undefined;
    }
    if (previous && previous.ino !== stat.ino) {
      // Another folder under the same name (one moved over it): nothing kept of the old one holds, its watches included.
      this.dropTree(absolute);
      previous = undefined;
    }
    // Watched before its names are read: a name added after the read is reported.
    if (this.watcher && !this.watcher.broken) this.watcher.watch(absolute, false, !previous);
    let names: { files: string[]; folders: string[] };
    if (previous && !reread && previous.trusted && previous.ino === stat.ino && previous.mtimeMs === stat.mtimeMs) names = previous.names;
    else {
      const read = this.readNames(absolute);
      if (!read) {
        if (previous) this.dropTree(absolute);
        return undefined;
      }
      names = read;
    }
    const kept: KeptFolder = {
      relative,
      ino: stat.ino,
      mtimeMs: stat.mtimeMs,
      trusted: !timeMayHideChange(stat.mtimeMs, seenAt),
      names,
      files: [],
      folders: [],
      rules: parentRules,
      ignoreFile: previous?.ignoreFile,
      attributesStamp: previous?.attributesStamp,
      listedAt: this.generation,
    };
    // A repository inside the folder has rules of its own; the outer ones stop at it.
    const nestedRepository = !isRoot && (names.files.includes('.git') || names.folders.includes('.git'));
    const base = nestedRepository ? IgnoreRules.none : parentRules;
    const statOf = (path: string) => this.stat(path);
    kept.rules = folderRules(absolute, names.files.includes('.gitignore'), base, kept, statOf);
    if (this.repository) readAttributes(this.repository, absolute, names.files.includes('.gitattributes'), kept, statOf);
    this.kept.set(absolute, kept);
    const firstVisit = !previous;
    const prefix = relative ? `${relative}/` : '';
    for (const name of names.folders) {
      const child = join(absolute, name);
      if (kept.rules.ignores(child, name, true)) this.noteIgnored(child, prefix + name + '/', name, firstVisit);
      else kept.folders.push(name);
    }
    for (const name of names.files) {
      const child = absolute + sep + name;
      if (kept.rules.ignores(child, name, false)) {
        this.noteIgnored(child, prefix + name, name, firstVisit);
        this.forget(child, false);
        continue;
      }
      if (this.updateFile(child, prefix + name)) kept.files.push(name);
      this.listedThisWalk++;
    }
    // What the folder held before and does not now (gone, or ignored now: then it is only no longer listed).
    if (previous) {
      const files = new Set(names.files);
      for (const name of previous.files) if (!files.has(name)) this.forget(absolute + sep + name, true);
      const listed = new Set(kept.folders);
      const present = new Set(names.folders);
      for (const name of previous.folders) if (!listed.has(name)) this.dropTree(join(absolute, name), !present.has(name));
    }
    return kept;
  }

  /** States the file and records a change when it is new or its stat moved; false when it is not a regular file now. */
  private updateFile(absolute: string, relative: string, eventSaysChanged = false, stated?: { stat: Stats | undefined; seenAt: number }): boolean {
    const seenAt = stated?.seenAt ?? this.now();
    const stat = stated ? stated.stat : this.stat(absolute);
    const was = this.files.get(absolute);
    if (!stat?.isFile()) {
      // Links and special files are not listed.
      if (was) this.forget(absolute, true);
      return false;
    }
    if (was && was.size === stat.size && was.mtimeMs === stat.mtimeMs && was.ctimeMs === stat.ctimeMs && was.ino === stat.ino) {
      if (was.timeUnsure || eventSaysChanged) {
        const now: ListedFile = { ...was, timeUnsure: timeMayHideChange(stat.mtimeMs, seenAt) };
        this.files.set(absolute, now);
        this.changes.push({ absolute, relative, was, now, unsure: true });
      }
      return true;
    }
    const now: ListedFile = { absolute, relative, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, timeUnsure: timeMayHideChange(stat.mtimeMs, seenAt) };
    this.files.set(absolute, now);
    // The first listing's files are all new: nothing before them to tell apart, and no change is kept.
    if (was || !this.firstListing) this.changes.push({ absolute, relative, was, now });
    return true;
  }

  /** The file is no longer listed: `gone` records the change (it was deleted or replaced by something not listed). */
  private forget(absolute: string, gone: boolean): void {
    const was = this.files.get(absolute);
    if (!was) return;
    this.files.delete(absolute);
    if (gone) this.changes.push({ absolute, relative: was.relative, was });
  }

  /** Drops a folder and everything under it: its files are recorded as gone when `gone` (else it is only no longer listed: ignored now). */
  private dropTree(absolute: string, gone = true): void {
    const prefix = absolute + sep;
    for (const path of [...this.kept.keys()]) if (path === absolute || path.startsWith(prefix)) this.kept.delete(path);
    for (const path of [...this.files.keys()]) if (path.startsWith(prefix)) this.forget(path, gone);
    this.watcher?.unwatchTree(absolute, sep);
  }

  /**
   * An ignored entry: said when it appeared or changed since the folder was last listed (never on
   * the first listing). An ignored folder is watched too (not what is under it): a change of its
   * own entries is said.
   */
  private noteIgnored(absolute: string, relative: string, name: string, firstVisit: boolean): void {
    const stat = this.stat(absolute);
    const stamp = stat ? stampOf(stat) : 'absent';
    const was = this.ignored.get(absolute);
    this.ignored.set(absolute, { relative, stamp });
    if (QUIET.has(name)) return;
    if (!firstVisit && was?.stamp !== stamp) this.ignoredChanged.push(relative);
    if (stat?.isDirectory() && this.watcher && !this.watcher.broken) this.watcher.watch(absolute, true, was?.stamp !== stamp);
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
        if (names !== 'all') for (const name of names) if (this.kept.has(join(folder, name))) this.dropTree(join(folder, name));
        await this.walkTree(folder, kept.relative, this.parentRulesOf(folder));
        continue;
      }
      const prefix = kept.relative ? `${kept.relative}/` : '';
      for (const name of names) await this.applyEvent(folder, kept, name, prefix + name);
    }
  }

  private async applyEvent(folder: string, kept: KeptFolder, name: string, relative: string): Promise<void> {
    const absolute = join(folder, name);
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
      for (const name of kept.folders) pending.push({ absolute: join(at.absolute, name), relative: `${kept.relative ? `${kept.relative}/` : ''}${name}`, rules: kept.rules });
    }
  }

  private readNames(absolute: string): { files: string[]; folders: string[] } | undefined {
    this.work.foldersRead++;
    try {
      const names = { files: [] as string[], folders: [] as string[] };
      for (const entry of readdirSync(absolute, { withFileTypes: true })) {
        if (entry.isDirectory()) names.folders.push(entry.name);
        else if (entry.isFile()) names.files.push(entry.name);
      }
      return names;
    } catch {
      return undefined;
    }
  }

  private stat(absolute: string, followLink = false): Stats | undefined {
    this.work.entriesStated++;
    try {
      return (followLink ? statSync : lstatSync)(absolute, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  }
}
