import { promises as fsp } from 'fs';
import { join } from 'path';

export interface ContentFilesOptions {
  /** Bytes held in memory (files read before a command, in case it changes them); past this the least recently used are dropped. */
  maxHeldBytes: number;
}

export const DEFAULT_CONTENT_OPTIONS: ContentFilesOptions = { maxHeldBytes: 64 * 1024 * 1024 };

let temporaries = 0;

/** Writes a file whole or not at all: a temporary file, then a rename. */
export async function writeWhole(path: string, bytes: Uint8Array | string): Promise<void> {
  const temp = `${path}.${process.pid}.${(temporaries++).toString(36)}.tmp`;
  await fsp.writeFile(temp, bytes);
  await fsp.rename(temp, path);
}

/**
 * The checkpoints' content files, named by their SHA-256 under `content/`. Only bytes a checkpoint
 * names are written there: the bytes of files read before a command, in case it changes them, are
 * held in memory (bounded, least recently used dropped first) and written only when a checkpoint
 * names them (`flush`, before it is saved); the rest are never written.
 */
export class ContentFiles {
  private readonly held = new Map<string, Uint8Array>();
  private heldBytes = 0;
  private readonly writing = new Map<string, Promise<void>>();
  /** Held bytes a checkpoint names that could not be written: kept in memory while this window lives (a restore here still finds them). */
  private readonly pinned = new Set<string>();
  /** Held bytes pushed out to make room, so far. */
  evictions = 0;
  /** Files written so far (counted for tests and benches). */
  written = 0;

  constructor(private readonly root: string, private readonly now: () => number, private readonly options: ContentFilesOptions = DEFAULT_CONTENT_OPTIONS) {}

  path(hash: string): string {
    return join(this.root, 'content', hash.slice(0, 2), hash);
  }

  /** Whether the bytes of `hash` are held in memory now. */
  holds(hash: string): boolean {
    return this.held.has(hash);
  }

  /**
   * Keeps `bytes` in memory (not written); false when they do not fit. `evict`: the least recently
   * used bytes make room (else only free room is used).
   */
  hold(hash: string, bytes: Uint8Array, evict = true): boolean {
    const had = this.held.get(hash);
    if (had) {
      this.held.delete(hash);
      this.held.set(hash, had); // used now: dropped last
      return true;
    }
    if (bytes.length > this.options.maxHeldBytes || (!evict && this.heldBytes + bytes.length > this.options.maxHeldBytes)) return false;
    this.held.set(hash, bytes);
    this.heldBytes += bytes.length;
    for (const [oldest, old] of this.held) {
      if (this.heldBytes <= this.options.maxHeldBytes) break;
      if (this.writing.has(oldest) || this.pinned.has(oldest)) continue;
      this.held.delete(oldest);
      this.heldBytes -= old.length;
      this.evictions++;
    }
    return this.held.has(hash);
  }

  /** Whether the content is written; its time is refreshed so pruning leaves it while a turn may still name it. */
  onDisk(hash: string): Promise<boolean> {
    const at = new Date(this.now());
    return fsp.utimes(this.path(hash), at, at).then(() => true, () => false);
  }

  /** Writes `bytes` as `hash` now (a checkpoint names them), unless written already. */
  async store(hash: string, bytes: Uint8Array): Promise<void> {
    if (await this.onDisk(hash)) return;
    await this.write(hash, bytes);
  }

  /** Writes the held bytes of these hashes (a checkpoint naming them is about to be saved). */
  async flush(hashes: Iterable<string>): Promise<void> {
    const pending: Array<Promise<void>> = [];
    for (const hash of hashes) {
      const bytes = this.held.get(hash);
      if (bytes) pending.push(this.writeOnce(hash, bytes));
    }
    await Promise.all(pending);
  }

  async read(hash: string): Promise<Uint8Array> {
    const bytes = this.held.get(hash);
    if (bytes) return bytes;
    return fsp.readFile(this.path(hash));
  }

  /** Writes held bytes once, whoever asks; they stay held (readable) whether or not the write succeeds. */
  private writeOnce(hash: string, bytes: Uint8Array): Promise<void> {
    let writing = this.writing.get(hash);
    if (!writing) {
      writing = this.store(hash, bytes)
        .then(
          () => void this.pinned.delete(hash),
          (error) => {
            this.pinned.add(hash);
            throw error;
          },
        )
        .finally(() => this.writing.delete(hash));
      this.writing.set(hash, writing);
    }
    return writing;
  }

  private async write(hash: string, bytes: Uint8Array): Promise<void> {
    await fsp.mkdir(join(this.root, 'content', hash.slice(0, 2)), { recursive: true });
    await writeWhole(this.path(hash), bytes);
    this.written++;
  }
}
