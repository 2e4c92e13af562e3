import { createHash } from 'crypto';
import { promises as fsp } from 'fs';
import { basename } from 'path';
import { nextTurn } from '../../../core/nextTurn';
import type { WriteFs } from '../files/atomicFile';
import { CONTENT_HASH } from '../files/storeLayout';
import { errorCode, errorText } from '../files/storeErrors';
import type { StoreParts } from '../storeParts';
import type { BlobInfo } from '../../../core/ports/blobStore';

/** Large results are written, hashed and verified in parts of this size. */
export const BLOB_PART_BYTES = 2 * 1024 * 1024;

/** What a ref file holds: the result's description, and a hash per part for results over one part. */
export interface RefRecord extends BlobInfo {
  partBytes: number;
  partHashes?: string[];
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The SHA-256 of `content`, hashed a part at a time with a turn of the event loop between parts. */
export async function sha256InParts(content: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let start = 0; start < content.length; start += BLOB_PART_BYTES) {
    hash.update(content.subarray(start, start + BLOB_PART_BYTES));
    if (start + BLOB_PART_BYTES < content.length) await nextTurn();
  }
  return hash.digest('hex');
}

async function partHashesOf(content: Uint8Array): Promise<string[]> {
  const hashes: string[] = [];
  for (let start = 0; start < content.length; start += BLOB_PART_BYTES) {
    hashes.push(sha256Of(content.subarray(start, start + BLOB_PART_BYTES)));
    await nextTurn();
  }
  return hashes;
}

function isRefRecord(value: unknown, refId: string): value is RefRecord {
  const r = value as Partial<RefRecord> | null;
  return (
    !!r && r.id === refId && typeof r.sessionId === 'string' && typeof r.toolName === 'string' && typeof r.sha256 === 'string' && CONTENT_HASH.test(r.sha256) &&
    Number.isSafeInteger(r.byteSize) && r.byteSize! >= 0 && Number.isSafeInteger(r.partBytes) && r.partBytes! > 0 && typeof r.lineCount === 'number' && typeof r.createdAt === 'number' &&
    (r.partHashes === undefined || (Array.isArray(r.partHashes) && r.partHashes.length === Math.ceil(r.byteSize! / r.partBytes!))) &&
    (r.sharedWith === undefined || (Array.isArray(r.sharedWith) && r.sharedWith.every((id) => typeof id === 'string')))
  );
}

/**
 * Stored results' files fsynced at once by a save. libuv runs four file operations at a time: with
 * three fsyncs in flight one stays free for the writes that go on meanwhile (a compaction storing
 * the next results), which queued behind eight.
 */
const SYNCS_AT_ONCE = 3;

/**
 * Offloaded results as plain files: the bytes in `blobs/<sha256>.blob` (the same content is
 * written once), and per ref a small `blobs/<ref>.ref` written after the content, so a ref file's
 * presence means its content is complete. Each file goes to a temp name and is renamed into
 * place; the fsyncs wait for the store's next save (`syncPending`), which runs them a few at a time,
 * then the folder's, before any session file that lists the result is saved.
 */
export class BlobFiles {
  private readonly unsynced = new Set<string>();
  /** Content (or parts of it) whose hash was checked in this run: `<sha256>:<part>`. */
  private readonly verified = new Set<string>();
  private temps = 0;
  private folderMade?: Promise<unknown>;

  constructor(private readonly parts: StoreParts, private readonly fs: WriteFs) {}

  async write(info: BlobInfo, content: Uint8Array): Promise<RefRecord> {
    const { layout } = this.parts;
    const record: RefRecord = { ...info, partBytes: BLOB_PART_BYTES, partHashes: content.length > BLOB_PART_BYTES ? await partHashesOf(content) : undefined };
    await this.writeContent(info.sha256, content);
    await this.writeFile(layout.refPath(info.id), Buffer.from(JSON.stringify(record)));
    return record;
  }

  /** `blobs/<sha256>.blob`, written unless a file of its size is there (the same content is written once); fsynced by the next save. */
  async writeContent(sha256: string, content: Uint8Array): Promise<void> {
    try {
      await this.writeContentOnce(sha256, content);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      this.folderMade = undefined; // the folder went away: made again
      await this.writeContentOnce(sha256, content);
    }
  }

  /** The results' folder, made once per run rather than once per result (a compaction stores tens of thousands). */
  private madeFolder(): Promise<unknown> {
    this.folderMade ??= fsp.mkdir(this.parts.layout.blobsDir, { recursive: true }).catch((error: unknown) => {
      this.folderMade = undefined;
      throw error;
    });
    return this.folderMade;
  }

  private async writeContentOnce(sha256: string, content: Uint8Array): Promise<void> {
    const { layout } = this.parts;
    await this.madeFolder();
    const contentPath = layout.contentPath(sha256);
    const present = await fsp.stat(contentPath).catch(() => undefined);
    if (!present || present.size !== content.length) await this.writeFile(contentPath, content);
  }

  /** Writes a ref's record again (its content is already there): the same temp file and rename as the first write. */
  async rewriteRef(record: RefRecord): Promise<void> {
    await this.writeFile(this.parts.layout.refPath(record.id), Buffer.from(JSON.stringify(record)));
  }

  /** Temp file, written in parts with event-loop turns between, then renamed over `path`. */
  private async writeFile(path: string, data: Uint8Array): Promise<void> {
    const temp = `${path}.tmp-${this.parts.layout.writer}-${(this.temps++).toString(36)}`;
    try {
      for (let start = 0; start === 0 || start < data.length; start += BLOB_PART_BYTES) {
        await this.fs.writeFile(temp, data.subarray(start, start + BLOB_PART_BYTES), start > 0);
        if (start + BLOB_PART_BYTES < data.length) await nextTurn();
      }
      await this.fs.rename(temp, path);
    } catch (error) {
      await fsp.rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    this.unsynced.add(path);
  }

  /**
   * Files written since the last call reach the disk: one fsync each, `SYNCS_AT_ONCE` at a time
   * (a compaction of 50,000 messages stores 25,000 results, 50,000 files: one after another their
   * fsyncs took tens of seconds), then one for the folder. A failed fsync leaves its file for the next call.
   */
  async syncPending(): Promise<void> {
    if (this.unsynced.size === 0) return;
    const paths = [...this.unsynced];
    let next = 0;
    const syncNext = async (): Promise<void> => {
      while (next < paths.length) {
        const path = paths[next++];
        try {
          await this.fs.syncFile(path);
        } catch (error) {
          if (errorCode(error) !== 'ENOENT') throw error; // gone (set aside): nothing to sync
        }
        this.unsynced.delete(path);
      }
    };
    const workers = Array.from({ length: Math.min(SYNCS_AT_ONCE, paths.length) }, syncNext);
    const failed = (await Promise.allSettled(workers)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await this.fs.syncDirectory(this.parts.layout.blobsDir);
  }

  /** The ref's record; undefined when it has no ref file. Throws when the file is damaged or cannot be read. */
  async readRef(refId: string): Promise<RefRecord | undefined> {
    const path = this.parts.layout.refPath(refId);
    let text: string;
    try {
      text = await fsp.readFile(path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw this.readFailed(refId, path, error);
    }
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      record = undefined;
    }
    if (!isRefRecord(record, refId)) throw await this.setAside(refId, path, 'its description is not valid');
    return record;
  }

  /** Exactly `length` (> 0) bytes from `start`; reads (and checks) only the parts the range touches. */
  async readRange(ref: RefRecord, start: number, length: number): Promise<Uint8Array> {
    const path = this.parts.layout.contentPath(ref.sha256);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(path, 'r');
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw this.readFailed(ref.id, path, error);
      const movedTo = await this.parts.reads.setAsideCopy(path);
      throw new Error(`the stored result "${ref.id}" could not be read: ${movedTo ? `its file was damaged and has been set aside (${movedTo})` : `its content file ${basename(path)} is missing`}`);
    }
    let damage: string | undefined;
    const out = new Uint8Array(length);
    try {
      const size = (await handle.stat()).size;
      if (size !== ref.byteSize) damage = `it holds ${size} bytes, ${ref.byteSize} were stored`;
      const partCount = ref.partHashes?.length ?? 1;
      const partBytes = ref.partHashes ? ref.partBytes : Math.max(1, ref.byteSize);
      for (let part = Math.floor(start / partBytes); !damage && part < partCount && part * partBytes < start + length; part++) {
        const partStart = part * partBytes;
        const bytes = new Uint8Array(Math.min(partBytes, ref.byteSize - partStart));
        const { bytesRead } = await handle.read(bytes, 0, bytes.length, partStart);
        const key = `${ref.sha256}:${part}`;
        if (!this.verified.has(key)) {
          const expected = ref.partHashes ? ref.partHashes[part] : ref.sha256;
          if (bytesRead !== bytes.length || sha256Of(bytes) !== expected) damage = `part ${part} does not match its SHA-256`;
          else this.verified.add(key);
        }
        const from = Math.max(start, partStart);
        const to = Math.min(start + length, partStart + bytes.length);
        if (to > from) out.set(bytes.subarray(from - partStart, to - partStart), from - start);
        if (part + 1 < partCount && (part + 1) * partBytes < start + length) await nextTurn();
      }
    } catch (error) {
      throw this.readFailed(ref.id, path, error);
    } finally {
      await handle.close().catch(() => undefined);
    }
    if (damage) throw await this.setAside(ref.id, path, damage);
    return out;
  }

  /** A failure that says nothing about the file (no handles, no memory, no permission): left alone. */
  private readFailed(refId: string, path: string, error: unknown): Error {
    const message = errorText(error);
    this.parts.problems.report({ file: path, kind: 'read-failed', message });
    return new Error(`the stored result "${refId}" could not be read: ${message}`);
  }

  private async setAside(refId: string, path: string, why: string): Promise<Error> {
    const movedTo = `${path}.corrupt-${new Date(this.parts.now()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      await fsp.rename(path, movedTo);
    } catch (error) {
      this.parts.problems.report({ file: path, kind: 'read-failed', message: `${why} (could not be set aside: ${errorText(error)})` });
      return new Error(`the stored result "${refId}" could not be read: its file is damaged (${why})`);
    }
    this.parts.problems.report({ file: path, kind: 'corrupt', message: why, movedTo });
    return new Error(`the stored result "${refId}" could not be read: its file was damaged and has been set aside (${movedTo}): ${why}`);
  }
}
