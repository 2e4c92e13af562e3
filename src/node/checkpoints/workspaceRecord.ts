import { createHash } from 'crypto';
import { dirname, sep } from 'path';
import type { CommandBaseline, CommandChanges, FileState } from '../../core/ports/checkpointStore';
import { readRegularFile } from '../regularFile';
import type { ContentFiles } from './contentFiles';
import { EventLoopSlices } from './eventLoopSlices';
import { gitBlobId } from './git/gitObjects';
import { GitRepository } from './git/gitRepository';
import type { FolderChange, FolderLimits, FolderRefresh, ListedFile } from './listing/listedFiles';
import { TrackedFolder } from './listing/trackedFolder';

export interface RecordLimits extends FolderLimits {
  /** Files larger than this are listed but their bytes not kept. */
  maxFileBytes: number;
  /** Reading the files to keep before a command stops after this long; the rest cannot be restored if it changes them. */
  captureBudgetMs: number;
  /** Whether folders may be watched (where a watcher can be trusted) rather than walked each time. */
  useWatcher: boolean;
}

/** How far before a command's start a file's modification time may read and still count as the command's (coarse file-system clocks). */
const MTIME_SLACK_MS = 100;

/**
 * Where a listed file's bytes can be had if a command changes it, valid while the file is listed
 * as `file` (a change to it replaces the listed file): a blob in git's objects, bytes kept (in
 * memory or stored), or why there are none.
 */
interface Backing {
  file: ListedFile;
  blob?: string;
  hash?: string;
  missing?: string;
}

interface Baseline extends CommandBaseline {
  startedAt: number;
  folders: Array<{ tracked: Tracked; unlisted: ReadonlySet<string>; complete: boolean }>;
}

interface Tracked {
  folder: TrackedFolder;
  repository?: GitRepository;
}

interface Refreshed {
  tracked: Tracked;
  refresh: FolderRefresh;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function sameState(a: FileState, b: FileState): boolean {
  if (a.kind === 'absent' || b.kind === 'absent') return a.kind === b.kind;
  return a.kind !== 'unstored' && b.kind !== 'unstored' && a.hash === b.hash;
}

/** Whether `absolute` lies in one of the folders a listing did not reach (or under one). */
function inUnlisted(absolute: string, unlisted: ReadonlySet<string>, root: string): boolean {
  if (!unlisted.size) return false;
  for (let at = dirname(absolute); at.length >= root.length; at = dirname(at)) {
    if (unlisted.has(at)) return true;
    if (at === root || dirname(at) === at) break;
  }
  return false;
}

function listOf(paths: readonly string[], max = 5): string {
  return paths.length <= max ? paths.join(', ') : `${paths.slice(0, max).join(', ')} and ${paths.length - max} more`;
}

/**
 * The workspace's files around commands: each folder's listing kept between commands (see
 * TrackedFolder), and for each listed file where its bytes can be had if a command changes it.
 * In a git repository a tracked file the index vouches for needs nothing (its blob is read only
 * if the command changes it); any other file is read once and held in memory while it does not
 * change. Only the bytes of files a command changed are ever stored.
 */
export class WorkspaceRecord {
  private readonly tracked = new Map<string, Tracked>();
  private readonly backing = new Map<string, Backing>();
  private readonly baselines = new WeakMap<CommandBaseline, Baseline>();
  /** Files left without bytes for want of time or memory: tried again before the next command. */
  private readonly retry = new Set<string>();
  /** Held bytes pushed out so far, when last looked: any since, and every file's backing is checked again. */
  private evictionsSeen = 0;
  /** Counted for tests and benches. */
  filesRead = 0;
  blobsRead = 0;

  constructor(
    private readonly limits: RecordLimits,
    private readonly content: ContentFiles,
    private readonly slices: EventLoopSlices,
    private readonly now: () => number,
  ) {}

  get work(): { foldersRead: number; entriesStated: number; walks: number } {
    const work = { foldersRead: 0, entriesStated: 0, walks: 0 };
    for (const { folder } of this.tracked.values()) {
      work.foldersRead += folder.work.foldersRead;
      work.entriesStated += folder.work.entriesStated;
      work.walks += folder.work.walks;
    }
    return work;
  }

  private trackedOf(folder: string): Tracked {
    let tracked = this.tracked.get(folder);
    if (!tracked) {
      const repository = GitRepository.find(folder);
      tracked = { repository, folder: new TrackedFolder(folder, this.limits, repository, this.slices, this.now, this.limits.useWatcher) };
      this.tracked.set(folder, tracked);
    }
    return tracked;
  }

  /** One listing at a time: a command's waits for the preparation running, then starts from what it left. */
  private queue: Promise<unknown> = Promise.resolve();

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Commands from their call for a baseline to the end of their record. Reading ahead stops as soon
   * as one waits, and never starts while one runs: it would take the command's writes for the
   * bytes before it.
   */
  private commandsUnderWay = 0;
  private readingAhead = false;

  /** Lists the folders and makes sure of each file's bytes ahead of a command (see CheckpointStore.prepare). */
  prepare(folders: readonly string[]): Promise<void> {
    return this.serially(async () => {
      const refreshed: Refreshed[] = [];
      for (const path of folders) {
        const tracked = this.trackedOf(path);
        tracked.repository?.refresh();
        refreshed.push({ tracked, refresh: await tracked.folder.refresh() });
      }
      await this.readInBackground(refreshed);
    });
  }

  /**
   * Reads what is left without bytes while no command runs, so the next command does not wait
   * for it: with more time than a command waits (the memory bound still holds), and giving way
   * to a command at the next slice.
   */
  private readInBackground(refreshed: readonly Refreshed[]): Promise<unknown> {
    return this.backEveryFile(refreshed, this.limits.captureBudgetMs * 10, () => this.commandsUnderWay > 0);
  }

  /** After a command: the files left without bytes are read before the next one comes, if it leaves time. */
  private readAheadOfNextCommand(): void {
    if (this.readingAhead || this.commandsUnderWay > 0 || !this.retry.size) return;
    this.readingAhead = true;
    void this.serially(async () => {
      try {
        if (this.commandsUnderWay > 0) return;
        // The files as last listed: one changed since is listed anew before the next command, and read again then.
        const unchanged: FolderRefresh = { changes: [], unlisted: new Set(), ignoredChanged: [], how: 'watcher' };
        await this.readInBackground([...this.tracked.values()].map((tracked) => ({ tracked, refresh: unchanged })));
      } finally {
        this.readingAhead = false;
      }
    });
  }

  /** Settles once the work queued so far (a command's record, reading ahead after it) is done: for tests and benches. */
  whenIdle(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  beforeCommand(folders: readonly string[]): Promise<CommandBaseline> {
    this.commandsUnderWay++;
    const baseline = this.serially(() => this.recordBefore(folders));
    // A command without a baseline makes no record (afterCommand is not called for it).
    baseline.catch(() => this.commandsUnderWay--);
    return baseline;
  }

  private async recordBefore(folders: readonly string[]): Promise<CommandBaseline> {
    const notes: string[] = [];
    const baseline: Baseline = { notes, startedAt: 0, folders: [] };
    const refreshed: Refreshed[] = [];
    for (const path of folders) {
      const tracked = this.trackedOf(path);
      tracked.repository?.refresh();
      const refresh = await tracked.folder.refresh();
      if (refresh.stoppedBecause) notes.push(`Files this command changes may not all be restorable: ${refresh.stoppedBecause}.`);
      baseline.folders.push({ tracked, unlisted: refresh.unlisted, complete: !refresh.stoppedBecause });
      refreshed.push({ tracked, refresh });
    }
    const missing = await this.backEveryFile(refreshed);
    if (missing.time) notes.push(`Files this command changes may not all be restorable: the time to record them before it ran out (${missing.time.toLocaleString('en-US')} files not recorded).`);
    if (missing.memory) notes.push(`Files this command changes may not all be restorable: ${missing.memory.toLocaleString('en-US')} files did not fit in the memory kept for them.`);
    baseline.startedAt = this.now();
    this.baselines.set(baseline, baseline);
    return baseline;
  }

  /**
   * The files whose backing may need making: after a walk (or once held bytes were pushed out)
   * every listed file; after the watcher's report, the files it changed and those left without
   * bytes last time.
   */
  private *candidates({ tracked, refresh }: Refreshed, everything: boolean, retried: ReadonlySet<string>): Iterable<ListedFile> {
    for (const change of refresh.changes) if (!change.now) this.backing.delete(change.absolute);
    if (everything || refresh.how === 'walk') {
      yield* tracked.folder.files.values();
      return;
    }
    for (const change of refresh.changes) if (change.now) yield change.now;
    for (const path of retried) {
      const file = tracked.folder.files.get(path);
      if (file) yield file;
    }
  }

  /**
   * Makes sure every listed file's bytes can be had: a blob the index vouches for, or bytes held
   * (read now when they are not). Bounded by `budgetMs`, or until `giveWay` says a command waits:
   * files not reached are counted, and tried again next time.
   */
  private async backEveryFile(folders: readonly Refreshed[], budgetMs = this.limits.captureBudgetMs, giveWay = () => false): Promise<{ time: number; memory: number }> {
    const deadline = this.now() + budgetMs;
    const missing = { time: 0, memory: 0 };
    let late = false;
    const everything = this.content.evictions !== this.evictionsSeen;
    this.evictionsSeen = this.content.evictions;
    const retried = new Set(this.retry);
    this.retry.clear();
    for (const folder of folders) {
      const { repository } = folder.tracked;
      for (const file of this.candidates(folder, everything, retried)) {
        const known = this.backing.get(file.absolute);
        if (known?.file === file && (known.blob || (known.hash && this.content.holds(known.hash)))) continue;
        // Every file takes its turn in the slices: asking the index about 20,000 tracked files is work too.
        await this.slices.turnIfDue();
        const blob = repository?.blobFor(file.absolute, file);
        if (blob) {
          this.backing.set(file.absolute, { file, blob });
          continue;
        }
        if (file.size > this.limits.maxFileBytes) {
          this.backing.set(file.absolute, { file, missing: `it is larger than ${Math.round(this.limits.maxFileBytes / 1024)} KB` });
          continue;
        }
        late ||= this.now() > deadline || giveWay();
        if (late) {
          missing.time++;
          this.retry.add(file.absolute);
          this.backing.set(file.absolute, { file, missing: 'the time to record files before the command ran out' });
          continue;
        }
        // Full: reading more would only push out what is held.
        const read = missing.memory ? undefined : this.readListed(file);
        if (!read || (read.hash && !this.content.hold(read.hash, read.bytes!, false))) {
          missing.memory++;
          this.retry.add(file.absolute);
          this.backing.set(file.absolute, { file, missing: 'it did not fit in the memory kept for files before a command' });
        } else this.backing.set(file.absolute, { file, hash: read.hash, missing: read.missing });
      }
    }
    return missing;
  }

  /** Reads a listed file's bytes (never through a link, never waiting on a pipe). */
  private readListed(file: ListedFile): { hash?: string; bytes?: Buffer; missing?: string } {
    this.filesRead++;
    try {
      const read = readRegularFile(file.absolute, { maxBytes: this.limits.maxFileBytes, noFollow: true });
      if (read.kind === 'bytes') return { hash: sha256(read.bytes), bytes: read.bytes };
      if (read.kind === 'too large') return { missing: `it is larger than ${Math.round(this.limits.maxFileBytes / 1024)} KB` };
      if (read.kind === 'absent') return { missing: 'it was gone when it was read' };
      return { missing: 'it is not a regular file' };
    } catch (error) {
      return { missing: (error as Error).message };
    }
  }

  afterCommand(commandBaseline: CommandBaseline): Promise<CommandChanges> {
    return this.serially(() => this.recordAfter(commandBaseline)).finally(() => {
      this.commandsUnderWay--;
      this.readAheadOfNextCommand();
    });
  }

  private async recordAfter(commandBaseline: CommandBaseline): Promise<CommandChanges> {
    const baseline = this.baselines.get(commandBaseline);
    if (!baseline) throw new Error('a command baseline this store did not make');
    const notes: string[] = [];
    const files: CommandChanges['files'] = [];
    for (const { tracked, unlisted, complete } of baseline.folders) {
      const refresh = await tracked.folder.refresh();
      if (refresh.stoppedBecause) notes.push(`Files this command changed may not all be restorable: ${refresh.stoppedBecause}.`);
      if (refresh.ignoredChanged.length) notes.push(`Not recorded, so not restorable: changes to ${listOf(refresh.ignoredChanged)} (git ignores them, or they are installed packages).`);
      for (const change of refresh.changes) {
        await this.slices.turnIfDue();
        const recorded = await this.changeOf(change, !complete && inUnlisted(change.absolute, unlisted, tracked.folder.folder), baseline.startedAt);
        if (recorded) files.push(recorded);
      }
    }
    return { files, notes };
  }

  /**
   * One change as the command's: the file's state before (its bytes stored now, from memory or
   * git's objects) and after. A file whose size and time did not move is compared by its bytes;
   * one in a folder the listing before did not reach counts only if it was modified once the
   * command started (its state before is not known).
   */
  private async changeOf(change: FolderChange, notListedBefore: boolean, startedAt: number): Promise<CommandChanges['files'][number] | undefined> {
    const { absolute, relative } = change;
    if (notListedBefore) {
      if (!change.now || change.now.mtimeMs < startedAt - MTIME_SLACK_MS) return undefined;
      return { absolute, relative, before: { kind: 'unstored', size: 0, reason: 'it was not listed before the command (the listing stopped early)' }, after: this.afterState(change.now) };
    }
    if (change.unsure && change.was && change.now && this.unchanged(change.was, change.now)) return undefined;
    const before: FileState = change.was ? await this.beforeState(change.was) : { kind: 'absent' };
    const after: FileState = change.now ? this.afterState(change.now) : { kind: 'absent' };
    if (!change.now) this.backing.delete(absolute);
    return sameState(before, after) ? undefined : { absolute, relative, before, after };
  }

  /** Whether a file whose size and time did not move still has the bytes it had (then its backing carries over). */
  private unchanged(was: ListedFile, now: ListedFile): boolean {
    const known = this.backing.get(was.absolute);
    if (!known || known.file !== was || (!known.blob && !known.hash)) return true; // nothing to compare with, and nothing to restore
    const read = readRegularFile(now.absolute, { maxBytes: this.limits.maxFileBytes, noFollow: true });
    this.filesRead++;
    if (read.kind !== 'bytes') return false;
    const same = known.blob ? gitBlobId(read.bytes) === known.blob : sha256(read.bytes) === known.hash;
    if (same) this.backing.set(now.absolute, { ...known, file: now });
    return same;
  }

  /** The file's state before the command, its bytes stored: they are what a restore writes back. */
  private async beforeState(was: ListedFile): Promise<FileState> {
    const known = this.backing.get(was.absolute);
    const unstored = (reason: string): FileState => ({ kind: 'unstored', size: was.size, reason });
    if (!known || known.file !== was) return unstored('it was not recorded before the command');
    if (known.hash) {
      if (this.content.holds(known.hash) || (await this.content.onDisk(known.hash))) return { kind: 'stored', hash: known.hash, size: was.size };
      return unstored('its bytes were no longer held when the command changed it');
    }
    if (known.blob) {
      const repository = this.trackedHolding(was.absolute)?.repository;
      try {
        if (!repository) throw new Error('the repository is gone');
        this.blobsRead++;
        const bytes = repository.objects.readBlob(known.blob);
        if (bytes.length !== was.size) return unstored("its copy in git's objects is not the file as it was checked out");
        const hash = sha256(bytes);
        await this.content.store(hash, bytes);
        return { kind: 'stored', hash, size: bytes.length };
      } catch (error) {
        return unstored(`its bytes could not be read from git's objects: ${(error as Error).message}`);
      }
    }
    return unstored(known.missing ?? 'it was not recorded before the command');
  }

  /** The file's state after the command, hashed; its bytes held for the next command (they are its bytes before). */
  private afterState(now: ListedFile): FileState {
    const read = this.readListed(now);
    if (!read.hash) {
      this.backing.set(now.absolute, { file: now, missing: read.missing });
      return read.missing === 'it was gone when it was read' ? { kind: 'absent' } : { kind: 'unstored', size: now.size, reason: read.missing ?? 'it could not be read' };
    }
    this.backing.set(now.absolute, this.content.hold(read.hash, read.bytes!) ? { file: now, hash: read.hash } : { file: now, missing: 'it did not fit in the memory kept for files before a command' });
    return { kind: 'seen', hash: read.hash, size: read.bytes!.length };
  }

  private trackedHolding(absolute: string): Tracked | undefined {
    for (const tracked of this.tracked.values()) if (absolute.startsWith(tracked.folder.folder + sep)) return tracked;
    return undefined;
  }

  close(): void {
    for (const { folder } of this.tracked.values()) folder.close();
    this.tracked.clear();
  }
}
