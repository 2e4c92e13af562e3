import { createHash } from 'crypto';
import { promises as fsp } from 'fs';
import { join } from 'path';
import type { CheckpointStore, CommandBaseline, CommandChanges, FileState, TurnCheckpoint } from '../../core/ports/checkpointStore';
import { readRegularFile } from '../regularFile';
import { pruneCheckpoints, type PruneOptions, type PruneOutcome, UNREFERENCED_CONTENT_GRACE_MS } from './checkpointPruning';
import { ContentFiles, type ContentFilesOptions, DEFAULT_CONTENT_OPTIONS, writeWhole } from './contentFiles';
import { EventLoopSlices } from './eventLoopSlices';
import { DirectoryWatcher } from './listing/directoryWatcher';
import { timeMayHideChange } from './modificationTimes';
import { type RecordLimits, WorkspaceRecord } from './workspaceRecord';

export type CheckpointStoreLimits = RecordLimits;

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointStoreLimits = {
  maxFileBytes: 1024 * 1024,
  maxFiles: 100_000,
  listBudgetMs: 400,
  watchedListBudgetMs: 10_000,
  maxWatchedFolders: 10_000,
  captureBudgetMs: 500,
  useWatcher: DirectoryWatcher.supported,
};

/** A hash remembered longer than this is confirmed on disk again, its time refreshed (well within the pruning grace). */
const RECHECK_MS = UNREFERENCED_CONTENT_GRACE_MS / 24;

const SAFE_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const HASH = /^[0-9a-f]{64}$/;

function safeName(name: string, what: string): string {
  if (!SAFE_NAME.test(name)) throw new Error(`${what} "${name.slice(0, 40)}" cannot name a checkpoint file`);
  return name;
}

function* namedHashes(checkpoint: TurnCheckpoint): Iterable<string> {
  for (const file of checkpoint.files) {
    if (file.before.kind === 'stored') yield file.before.hash;
    if (file.after?.kind === 'stored') yield file.after.hash;
  }
}

/**
 * Checkpoints in the extension's global storage: file bytes under `content/` named by their SHA-256
 * (each stored once, whatever turn or session kept it; only bytes a checkpoint names), and one JSON
 * file per turn under `turns/<session>/`. Each window writes only its own turns' files and content
 * files are identical whoever writes them, so two windows never overwrite each other's.
 */
export class FileCheckpointStore implements CheckpointStore {
  /**
   * What was hashed last, by path: a file whose size and time did not move is not read again,
   * unless its time was too recent when it was read to show a change after (`trusted` false).
   * `storedAt`: when its bytes were last known to be in `content/` (undefined: only hashed).
   */
  private readonly known = new Map<string, { size: number; mtimeMs: number; hash: string; storedAt?: number; trusted: boolean }>();
  private readonly record: WorkspaceRecord;
  private readonly content: ContentFiles;
  /** Listing and reading are synchronous calls (a few microseconds each) in slices, with turns of the event loop between. */
  private readonly slices = new EventLoopSlices();
  private readonly limits: CheckpointStoreLimits;
  private filesRead = 0;

  constructor(private readonly root: string, limits: Partial<CheckpointStoreLimits> = {}, private readonly now: () => number = Date.now, contentOptions: ContentFilesOptions = DEFAULT_CONTENT_OPTIONS) {
    this.limits = { ...DEFAULT_CHECKPOINT_LIMITS, ...limits };
    this.content = new ContentFiles(root, now, contentOptions);
    this.record = new WorkspaceRecord(this.limits, this.content, this.slices, now);
  }

  /** The file-system work done so far (counted for tests and benches). */
  get work(): { foldersRead: number; entriesStated: number; walks: number; filesRead: number; blobsRead: number; contentFilesWritten: number } {
    return { ...this.record.work, filesRead: this.filesRead + this.record.filesRead, blobsRead: this.record.blobsRead, contentFilesWritten: this.content.written };
  }

  beforeCommand(folders: readonly string[]): Promise<CommandBaseline> {
    return this.record.beforeCommand(folders);
  }

  prepare(folders: readonly string[]): Promise<void> {
    return this.record.prepare(folders);
  }

  /** Settles once the workspace's record has done what is queued (reading ahead between commands included): for tests and benches. */
  whenIdle(): Promise<void> {
    return this.record.whenIdle();
  }

  afterCommand(baseline: CommandBaseline): Promise<CommandChanges> {
    return this.record.afterCommand(baseline);
  }

  capture(absolute: string): Promise<FileState> {
    return this.stateOf(absolute, true);
  }

  inspect(absolute: string): Promise<FileState> {
    return this.stateOf(absolute, false);
  }

  /** The file's state now; `keep`: its bytes stored (a checkpoint names them), else only hashed. */
  private async stateOf(absolute: string, keep: boolean): Promise<FileState> {
    const stat = await fsp.lstat(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (!stat) return { kind: 'absent' };
    if (!stat.isFile()) return { kind: 'unstored', size: stat.size, reason: 'it is not a regular file' };
    if (stat.size > this.limits.maxFileBytes) return this.tooLarge(stat.size);
    const known = this.known.get(absolute);
    if (known && known.trusted && known.size === stat.size && known.mtimeMs === stat.mtimeMs) {
      if (!keep) return { kind: 'seen', hash: known.hash, size: known.size };
      if (known.storedAt !== undefined && this.now() - known.storedAt < RECHECK_MS) return { kind: 'stored', hash: known.hash, size: known.size };
      if (await this.content.onDisk(known.hash)) {
        known.storedAt = this.now();
        return { kind: 'stored', hash: known.hash, size: known.size };
      }
    }
    const readAt = this.now();
    this.filesRead++;
    // Stated as a regular file an instant ago, it may since be a link (whose target must not be copied) or a pipe.
    const read = readRegularFile(absolute, { maxBytes: this.limits.maxFileBytes, noFollow: true });
    if (read.kind === 'absent') return { kind: 'absent' };
    if (read.kind === 'not regular') return { kind: 'unstored', size: stat.size, reason: 'it is not a regular file' };
    if (read.kind === 'too large') return this.tooLarge(read.size ?? this.limits.maxFileBytes + 1);
    const hash = createHash('sha256').update(read.bytes).digest('hex');
    if (keep) await this.content.store(hash, read.bytes);
    this.known.set(absolute, { size: stat.size, mtimeMs: stat.mtimeMs, hash, storedAt: keep ? this.now() : undefined, trusted: !timeMayHideChange(stat.mtimeMs, readAt) });
    return keep ? { kind: 'stored', hash, size: read.bytes.length } : { kind: 'seen', hash, size: read.bytes.length };
  }

  private tooLarge(size: number): FileState {
    return { kind: 'unstored', size, reason: `it is larger than ${Math.round(this.limits.maxFileBytes / 1024)} KB` };
  }

  async read(hash: string): Promise<Uint8Array> {
    if (!HASH.test(hash)) throw new Error('not a stored content hash');
    return this.content.read(hash).catch(() => {
      throw new Error('its saved content is gone from the checkpoint storage');
    });
  }

  /** Writes a turn's checkpoint, once the bytes it names are written. */
  async save(checkpoint: TurnCheckpoint): Promise<void> {
    await this.content.flush(namedHashes(checkpoint));
    const dir = join(this.root, 'turns', safeName(checkpoint.sessionId, 'session id'));
    await fsp.mkdir(dir, { recursive: true });
    await writeWhole(join(dir, `${safeName(checkpoint.id, 'checkpoint id')}.json`), JSON.stringify(checkpoint));
  }

  /** Removes a session's checkpoints (its content goes at the next prune, when no other session names it). */
  async removeSession(sessionId: string): Promise<void> {
    await fsp.rm(join(this.root, 'turns', safeName(sessionId, 'session id')), { recursive: true, force: true });
  }

  /** Keeps the storage bounded (see checkpointPruning.ts); what this window remembered is confirmed again. */
  async prune(options: PruneOptions = {}): Promise<PruneOutcome> {
    const outcome = await pruneCheckpoints(this.root, (id) => this.load(id), (id) => this.removeSession(id), { now: this.now(), ...options });
    if (outcome.removedContentFiles) for (const known of this.known.values()) known.storedAt = undefined;
    return outcome;
  }

  async load(sessionId: string): Promise<TurnCheckpoint[]> {
    const dir = join(this.root, 'turns', safeName(sessionId, 'session id'));
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const loaded: TurnCheckpoint[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      try {
        const parsed = JSON.parse(await fsp.readFile(join(dir, name), 'utf8')) as TurnCheckpoint;
        if (parsed && parsed.sessionId === sessionId && Array.isArray(parsed.files)) loaded.push({ ...parsed, problems: Array.isArray(parsed.problems) ? parsed.problems : [] });
      } catch {
        // A damaged checkpoint file restores nothing; the others still load.
      }
    }
    return loaded.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Stops watching the workspace (the window closes). */
  dispose(): void {
    this.record.close();
  }
}
