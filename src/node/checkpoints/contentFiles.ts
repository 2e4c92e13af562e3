import { promises as fsp } from 'fs';
import { join } from 'path';

export interface ContentFilesOptions {
  /** Bytes that may wait in memory to be written; past this, bytes are written before `put` returns. */
  maxWaitingBytes: number;
  /** Waiting bytes are written once no bytes were put for this long (after the command, not in its wait). */
  writeDelayMs: number;
}

export const DEFAULT_CONTENT_OPTIONS: ContentFilesOptions = { maxWaitingBytes: 64 * 1024 * 1024, writeDelayMs: 1000 };

let temporaries = 0;

/** Writes a file whole or not at all: a temporary file, then a rename. */
export async function writeWhole(path: string, bytes: Uint8Array | string): Promise<void> {
  const temp = `${path}.${process.pid}.${(temporaries++).toString(36)}.tmp`;
  await fsp.writeFile(temp, bytes);
  await fsp.rename(temp, path);
}

/**
 * The checkpoints' content files, named by their SHA-256 under `content/`. Bytes kept before a
 * command may wait in memory (bounded) and be written after it, when nothing is being recorded:
 * most files a command is recorded around are not changed by it, and writing them was most of its
 * wait. Bytes a checkpoint names are written before the checkpoint is saved (`flush`), and read
 * from memory while they wait.
 */
export class ContentFiles {
  private readonly waiting = new Map<string, Uint8Array>();
  private waitingBytes = 0;
  private readonly writing = new Map<string, Promise<void>>();
  private timer?: ReturnType<typeof setTimeout>;
  /** Files written so far (counted for tests and benches). */
  written = 0;

  constructor(private readonly root: string, private readonly now: () => number, private readonly options: ContentFilesOptions = DEFAULT_CONTENT_OPTIONS) {}

  path(hash: string): string {
    return join(this.root, 'content', hash.slice(0, 2), hash);
  }

  /** Whether the content is kept (written or waiting); a written one's time is refreshed so pruning leaves it while a turn may still name it. */
  keep(hash: string): Promise<boolean> {
    if (this.waiting.has(hash)) return Promise.resolve(true);
    const at = new Date(this.now());
    return fsp.utimes(this.path(hash), at, at).then(() => true, () => false);
  }

  /** Keeps `bytes` as `hash`: waiting when `later` and there is room, else written before this returns. */
  async put(hash: string, bytes: Uint8Array, later: boolean): Promise<void> {
    if (this.waiting.has(hash)) return;
    if (later && this.waitingBytes + bytes.length <= this.options.maxWaitingBytes) {
      this.waiting.set(hash, bytes);
      this.waitingBytes += bytes.length;
      this.writeSoon();
      return;
    }
    await this.write(hash, bytes);
  }

  /** Writes now the waiting bytes of these hashes (a checkpoint naming them is about to be saved). */
  async flush(hashes: Iterable<string>): Promise<void> {
    const pending: Array<Promise<void>> = [];
    for (const hash of hashes) {
      const bytes = this.waiting.get(hash);
      if (bytes) pending.push(this.writeWaiting(hash, bytes));
    }
    await Promise.all(pending);
  }

  async read(hash: string): Promise<Uint8Array> {
    const bytes = this.waiting.get(hash);
    if (bytes) return bytes;
    return fsp.readFile(this.path(hash));
  }

  private writeSoon(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeAllWaiting();
    }, this.options.writeDelayMs);
    this.timer.unref?.();
  }

  /**
   * One file at a time, in the background. A file that cannot be written stays waiting (a turn may
   * already name it: its checkpoint's save tries again, and a restore in this window reads it from
   * memory); the writing stops there until more bytes come.
   */
  private async writeAllWaiting(): Promise<void> {
    for (const [hash, bytes] of [...this.waiting]) {
      if (this.timer) return; // more bytes came: wait for the next quiet moment
      const written = await this.writeWaiting(hash, bytes).then(() => true, () => false);
      if (!written) return;
    }
  }

  /** Writes waiting bytes once, whoever asks; they stay waiting (readable) until written. */
  private writeWaiting(hash: string, bytes: Uint8Array): Promise<void> {
    let writing = this.writing.get(hash);
    if (!writing) {
      writing = (async () => {
        const at = new Date(this.now());
        const there = await fsp.utimes(this.path(hash), at, at).then(() => true, () => false);
        if (!there) await this.write(hash, bytes);
        this.forget(hash);
      })().finally(() => this.writing.delete(hash));
      this.writing.set(hash, writing);
    }
    return writing;
  }

  private forget(hash: string): void {
    const bytes = this.waiting.get(hash);
    if (!bytes) return;
    this.waiting.delete(hash);
    this.waitingBytes -= bytes.length;
  }

  private async write(hash: string, bytes: Uint8Array): Promise<void> {
    await fsp.mkdir(join(this.root, 'content', hash.slice(0, 2)), { recursive: true });
    await writeWhole(this.path(hash), bytes);
    this.written++;
  }
}
