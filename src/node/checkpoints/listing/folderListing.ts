import { lstatSync, readdirSync, statSync, type Stats } from 'fs';
import { dirname, join, resolve, sep } from 'path';
import type { GitRepository } from '../git/gitRepository';
import { IgnoreRules } from '../git/ignoreRules';
import { timeMayHideChange } from '../modificationTimes';
import type { DirectoryWatcher } from './directoryWatcher';
import type { FolderChange, FolderRefresh, IgnoredEntry, KeptFolder, ListedFile } from './listedFiles';
import { folderRules, readAttributes, readSmall, stampOf } from './patternFiles';

/** Version-control folders: ignored, and not worth a note when they change (every git command does). */
const QUIET = new Set(['.git', '.hg', '.svn']);

/** A child's path: built by hand, not by join (which normalizes, and costs, on every entry); one way everywhere, so paths compare. */
export const childOf = (folder: string, name: string) => (folder.endsWith(sep) ? folder + name : folder + sep + name);

/**
 * One workspace folder's listing as kept between refreshes: its files, its folders' names (with
 * the ignore rules in force in each), the ignored entries met, and what each refresh changed.
 * Lists one folder at a time (`visit`); TrackedFolder decides which, by walking or from what a
 * watcher reported. Ignore rules apply as git applies them (every .gitignore, the repository's
 * exclude file); version-control folders and node_modules are never listed.
 */
export class FolderListing {
  /** The folder, its path resolved (the keys of what is listed are built from it). */
  readonly folder: string;
  readonly files = new Map<string, ListedFile>();
  protected readonly kept = new Map<string, KeptFolder>();
  protected readonly ignored = new Map<string, IgnoredEntry>();
  protected watcher?: DirectoryWatcher;
  protected generation = 0;
  protected changes: FolderChange[] = [];
  /** Files listed by the walk running now (its bound counts these). */
  protected listedThisWalk = 0;
  /** The walk running now is the first: every file is new, none is a change. */
  protected firstListing = false;
  protected ignoredChanged: string[] = [];
  /** The rules from above the folder: the repository's exclude file and the .gitignore files between its root and the folder. */
  protected readonly outerRules: IgnoreRules;
  /** Entries stated and folders read (counted for tests and benches). */
  readonly work = { foldersRead: 0, entriesStated: 0, walks: 0 };

  constructor(
    folder: string,
    private readonly repository: GitRepository | undefined,
    protected readonly now: () => number,
  ) {
    this.folder = resolve(folder);
    let rules = IgnoreRules.none;
    if (repository) {
      rules = rules.with(repository.root, repository.excludeText);
      const between: string[] = [];
      for (let at = dirname(this.folder); at.length >= repository.root.length && at.startsWith(repository.root); at = dirname(at)) {
        between.unshift(at);
        if (at === repository.root || dirname(at) === at) break;
      }
      for (const at of between) {
        rules = rules.with(at, readSmall(join(at, '.gitignore')));
        repository.conversions.setFile(at, readSmall(join(at, '.gitattributes')) || undefined);
      }
    }
    this.outerRules = rules;
  }

  /** The refresh's outcome; a file changed twice within it (dropped with its folder, then listed again) is one change. */
  protected result(how: FolderRefresh['how'], unlisted: ReadonlySet<string>, stoppedBecause?: string): FolderRefresh {
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

  /**
   * Lists one folder: its names (kept ones when it did not move, unless `reread`), the rules in
   * force in it, and each file stated. Folders gone since are dropped with everything under them.
   * Returns the folder as kept, or undefined when it is not a folder now.
   */
  protected visit(absolute: string, relative: string, parentRules: IgnoreRules, reread: boolean): KeptFolder | undefined {
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
      const child = childOf(absolute, name);
      if (kept.rules.ignores(child, name, true)) this.noteIgnored(child, prefix + name + '/', name, firstVisit);
      else kept.folders.push(name);
    }
    for (const name of names.files) {
      const child = childOf(absolute, name);
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
      for (const name of previous.files) if (!files.has(name)) this.forget(childOf(absolute, name), true);
      const listed = new Set(kept.folders);
      const present = new Set(names.folders);
      for (const name of previous.folders) if (!listed.has(name)) this.dropTree(childOf(absolute, name), !present.has(name));
    }
    return kept;
  }

  /** States the file and records a change when it is new or its stat moved; false when it is not a regular file now. */
  protected updateFile(absolute: string, relative: string, eventSaysChanged = false, stated?: { stat: Stats | undefined; seenAt: number }): boolean {
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
  protected forget(absolute: string, gone: boolean): void {
    const was = this.files.get(absolute);
    if (!was) return;
    this.files.delete(absolute);
    if (gone) this.changes.push({ absolute, relative: was.relative, was });
  }

  /** Drops a folder and everything under it: its files are recorded as gone when `gone` (else it is only no longer listed: ignored now). */
  protected dropTree(absolute: string, gone = true): void {
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
  protected noteIgnored(absolute: string, relative: string, name: string, firstVisit: boolean): void {
    const stat = this.stat(absolute);
    const stamp = stat ? stampOf(stat) : 'absent';
    const was = this.ignored.get(absolute);
    this.ignored.set(absolute, { relative, stamp });
    if (QUIET.has(name)) return;
    if (!firstVisit && was?.stamp !== stamp) this.ignoredChanged.push(relative);
    if (stat?.isDirectory() && this.watcher && !this.watcher.broken) this.watcher.watch(absolute, true, was?.stamp !== stamp);
  }

  protected readNames(absolute: string): { files: string[]; folders: string[] } | undefined {
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

  protected stat(absolute: string, followLink = false): Stats | undefined {
    this.work.entriesStated++;
    try {
      return (followLink ? statSync : lstatSync)(absolute, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  }
}
