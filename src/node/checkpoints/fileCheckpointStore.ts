import { createHash } from 'crypto';
import { promises as fsp } from 'fs';
import { join, relative as relativePath, sep } from 'path';
import type { CheckpointStore, FileState, FolderListing, ListedFile, TurnCheckpoint } from '../../core/ports/checkpointStore';
import { pruneCheckpoints, type PruneOptions, type PruneOutcome, UNREFERENCED_CONTENT_GRACE_MS } from './checkpointPruning';
import { ignoredNames } from './ignoredNames';

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

/** Writes a file whole or not at all: a temporary file, then a rename. */
async function writeWhole(path: string, bytes: Uint8Array | string): Promise<void> {
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  await fsp.writeFile(temp, bytes);
  await fsp.rename(temp, path);
}

/**
 * Checkpoints in the extension's global storage: file bytes under `content/` named by their SHA-256
 * (each stored once, whatever turn or session kept it), and one JSON file per turn under
 * `turns/<session>/`. Each window writes only its own turns' files and content files are
 * identical whoever writes them, so two windows never overwrite each other's.
 */
export class FileCheckpointStore implements CheckpointStore {
  /** What was hashed last, by path: a file whose size and time did not move is not read again. */
  private readonly known = new Map<string, { size: number; mtimeMs: number; hash: string; checkedAt: number }>();

  constructor(private readonly root: string, private readonly limits: CheckpointStoreLimits = DEFAULT_CHECKPOINT_LIMITS, private readonly now: () => number = Date.now) {}

  private contentPath(hash: string): string {
    return join(this.root, 'content', hash.slice(0, 2), hash);
  }

  async capture(absolute: string, listed?: { size: number; mtimeMs: number }): Promise<FileState> {
    const cached = listed && this.known.get(absolute);
    if (cached && listed && cached.size === listed.size && cached.mtimeMs === listed.mtimeMs && this.now() - cached.checkedAt < RECHECK_MS) return { kind: 'stored', hash: cached.hash, size: cached.size };
    const stat = await fsp.lstat(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (!stat) return { kind: 'absent' };
    if (!stat.isFile()) return { kind: 'unstored', size: stat.size, reason: 'it is not a regular file' };
    if (stat.size > this.limits.maxFileBytes) return { kind: 'unstored', size: stat.size, reason: `it is larger than ${Math.round(this.limits.maxFileBytes / 1024)} KB` };
    const known = this.known.get(absolute);
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs && (await this.keep(known.hash))) {
      known.checkedAt = this.now();
      return { kind: 'stored', hash: known.hash, size: known.size };
    }
    const bytes = await fsp.readFile(absolute);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (!(await this.keep(hash))) {
      await fsp.mkdir(join(this.root, 'content', hash.slice(0, 2)), { recursive: true });
      await writeWhole(this.contentPath(hash), bytes);
    }
    this.known.set(absolute, { size: stat.size, mtimeMs: stat.mtimeMs, hash, checkedAt: this.now() });
    return { kind: 'stored', hash, size: bytes.length };
  }

  /** Whether the content is stored; its time is refreshed so pruning leaves it while a turn may still name it. */
  private keep(hash: string): Promise<boolean> {
    const at = new Date(this.now());
    return fsp.utimes(this.contentPath(hash), at, at).then(() => true, () => false);
  }

  async read(hash: string): Promise<Uint8Array> {
    if (!HASH.test(hash)) throw new Error('not a stored content hash');
    return fsp.readFile(this.contentPath(hash)).catch(() => {
      throw new Error('its saved content is gone from the checkpoint storage');
    });
  }

  async list(folders: readonly string[]): Promise<FolderListing> {
    const deadline = Date.now() + this.limits.listBudgetMs;
    const files: ListedFile[] = [];
    for (const folder of folders) {
      const skip = await ignoredNames(folder);
      const pending = [folder];
      while (pending.length) {
        if (Date.now() > deadline) return { files, complete: false, note: `listing the workspace took longer than ${this.limits.listBudgetMs} ms` };
        const dir = pending.pop()!;
        const entries = (await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => !skip.has(e.name));
        for (const entry of entries) if (entry.isDirectory()) pending.push(join(dir, entry.name));
        // A folder's files are stated together; links and special files are not listed.
        const plain = entries.filter((e) => e.isFile()).slice(0, this.limits.maxFiles - files.length + 1);
        const stats = await Promise.all(plain.map((e) => fsp.lstat(join(dir, e.name)).catch(() => undefined)));
        plain.forEach((entry, i) => {
          const stat = stats[i];
          const absolute = join(dir, entry.name);
          if (stat?.isFile()) files.push({ absolute, relative: relativePath(folder, absolute).split(sep).join('/'), size: stat.size, mtimeMs: stat.mtimeMs });
        });
        if (files.length > this.limits.maxFiles) return { files: files.slice(0, this.limits.maxFiles), complete: false, note: `the workspace has more than ${this.limits.maxFiles.toLocaleString('en-US')} files` };
      }
    }
    return { files, complete: true };
  }

  async save(checkpoint: TurnCheckpoint): Promise<void> {
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
