import { createHash } from 'crypto';
import { promises as fsp } from 'fs';
import { readRegularFile } from '../regularFile';
import { join } from 'path';
import type { CheckpointStore, FileState, FolderListing, TurnCheckpoint } from '../../core/ports/checkpointStore';
import { pruneCheckpoints, type PruneOptions, type PruneOutcome, UNREFERENCED_CONTENT_GRACE_MS } from './checkpointPruning';
import { ContentFiles, type ContentFilesOptions, DEFAULT_CONTENT_OPTIONS, writeWhole } from './contentFiles';
import { EventLoopSlices } from './eventLoopSlices';
import { timeMayHideChange } from './modificationTimes';
import { type ListingWork, WorkspaceLister } from './workspaceLister';

export interface CheckpointStoreLimits {
  /** Files larger than this are listed but their bytes not kept. */
  maxFileBytes: number;
  /** A listing stops after this many files… */
  maxFiles: number;
  /** …or after this long. */
  listBudgetMs: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointStoreLimits = { maxFileBytes: 1024 * 1024, maxFiles: 20_000, listBudgetMs: 400 };

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
 * (each stored once, whatever turn or session kept it), and one JSON file per turn under
 * `turns/<session>/`. Each window writes only its own turns' files and content files are
 * identical whoever writes them, so two windows never overwrite each other's.
 */
export class FileCheckpointStore implements CheckpointStore {
  /**
   * What was hashed last, by path: a file whose size and time did not move is not read again,
   * unless its time was too recent when it was read to show a change after (`trusted` false).
   */
  private readonly known = new Map<string, { size: number; mtimeMs: number; hash: string; checkedAt: number; trusted: boolean }>();
  private readonly lister: WorkspaceLister;
  private readonly content: ContentFiles;
  /** Listing and reading are synchronous calls (a few microseconds each) in slices, with turns of the event loop between. */
  private readonly slices = new EventLoopSlices();
  private filesRead = 0;

  constructor(private readonly root: string, private readonly limits: CheckpointStoreLimits = DEFAULT_CHECKPOINT_LIMITS, private readonly now: () => number = Date.now, contentOptions: ContentFilesOptions = DEFAULT_CONTENT_OPTIONS) {
    this.lister = new WorkspaceLister(limits, this.slices, now);
    this.content = new ContentFiles(root, now, contentOptions);
  }

  /** The file-system work done so far (counted for tests and benches). */
  get work(): ListingWork & { filesRead: number; contentFilesWritten: number } {
    return { ...this.lister.work, filesRead: this.filesRead, contentFilesWritten: this.content.written };
  }

  /**
   * With `listed` (a file from a listing, before a command), the bytes read may wait in memory and
   * be written after the command: only those of the files it changes are written before their
   * checkpoint is saved. Without, they are written before this returns.
   */
  async capture(absolute: string, listed?: { size: number; mtimeMs: number }): Promise<FileState> {
    const known = this.known.get(absolute);
    if (listed) {
      if (known && known.trusted && known.size === listed.size && known.mtimeMs === listed.mtimeMs) {
        if (this.now() - known.checkedAt < RECHECK_MS) return { kind: 'stored', hash: known.hash, size: known.size };
        if (await this.content.keep(known.hash)) {
          known.checkedAt = this.now();
          return { kind: 'stored', hash: known.hash, size: known.size };
        }
      }
      if (listed.size > this.limits.maxFileBytes) return this.tooLarge(listed.size);
      await this.slices.turnIfDue();
      // Listed as a regular file an instant ago: its size and time are those recorded with the bytes read now (a change between moves its time).
      return this.readAndKeep(absolute, listed, true);
    }
    const stat = await fsp.lstat(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (!stat) return { kind: 'absent' };
    if (!stat.isFile()) return { kind: 'unstored', size: stat.size, reason: 'it is not a regular file' };
    if (stat.size > this.limits.maxFileBytes) return this.tooLarge(stat.size);
    if (known && known.trusted && known.size === stat.size && known.mtimeMs === stat.mtimeMs && (await this.content.keep(known.hash))) {
      known.checkedAt = this.now();
      return { kind: 'stored', hash: known.hash, size: known.size };
    }
    return this.readAndKeep(absolute, stat, false);
  }

  private tooLarge(size: number): FileState {
    return { kind: 'unstored', size, reason: `it is larger than ${Math.round(this.limits.maxFileBytes / 1024)} KB` };
  }

  private async readAndKeep(absolute: string, stat: { size: number; mtimeMs: number }, later: boolean): Promise<FileState> {
    const readAt = this.now();
    this.filesRead++;
    // Listed as a regular file an instant ago, it may since be a link (whose target must not be copied) or a pipe.
    const read = readRegularFile(absolute, { maxBytes: this.limits.maxFileBytes, noFollow: true });
    if (read.kind === 'absent') return { kind: 'absent' };
    if (read.kind === 'not regular') return { kind: 'unstored', size: stat.size, reason: 'it is not a regular file' };
    if (read.kind === 'too large') return this.tooLarge(read.size ?? this.limits.maxFileBytes + 1);
    const { bytes } = read;
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (later) await this.content.put(hash, bytes, true);
    else if (!(await this.content.keep(hash))) await this.content.put(hash, bytes, false);
    this.known.set(absolute, { size: stat.size, mtimeMs: stat.mtimeMs, hash, checkedAt: this.now(), trusted: !timeMayHideChange(stat.mtimeMs, readAt) });
    return { kind: 'stored', hash, size: bytes.length };
  }

  async read(hash: string): Promise<Uint8Array> {
    if (!HASH.test(hash)) throw new Error('not a stored content hash');
    return this.content.read(hash).catch(() => {
      throw new Error('its saved content is gone from the checkpoint storage');
    });
  }

  /** The files under the folders (see WorkspaceLister: folders' names are kept between listings, files stated each time). */
  list(folders: readonly string[]): Promise<FolderListing> {
    return this.lister.list(folders);
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
    if (outcome.removedContentFiles) this.known.clear();
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
}

