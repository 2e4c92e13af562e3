import { promises as fsp } from 'fs';
import { basename } from 'path';
import type { Database } from 'sql.js';
import { newId } from '../../core/model/ids';
import { nextTurn } from '../../core/nextTurn';
import { writeAtomically, type WriteFs } from './atomicFile';
import { REF_PATTERN, SEGMENT_FILE } from './layout';
import { measureContent } from './measureContent';
import { newDatabase, rows, type Row } from './sqlRows';
import { eachSessionDb, ownDb, type StoreParts } from './storeParts';
import type { BlobInfo, BlobSlice } from '../../core/ports/sessionStore';

/** Offloaded results larger than this are stored as parts of this size, one file each. */
export const BLOB_PART_BYTES = 2 * 1024 * 1024;

const INFO_COLUMNS = 'id, session_id, tool_name, tool_call_id, byte_size, line_count, sha256, created_at';

function blobInfoOf(r: Row): BlobInfo {
  return {
    id: String(r.id),
    sessionId: String(r.session_id),
    toolName: String(r.tool_name),
    toolCallId: r.tool_call_id === null ? undefined : String(r.tool_call_id),
    byteSize: Number(r.byte_size),
    lineCount: Number(r.line_count),
    sha256: String(r.sha256),
    createdAt: Number(r.created_at),
  };
}

/**
 * Offloaded tool results: each written once to `blobs/<ref>.sqlite`; a result over one part is
 * written as part files first and its main file (metadata only) last, so the main file's presence
 * means the result is complete. The session's segment indexes it. Blob files are read once and
 * let go, never kept open.
 */
export class BlobStore {
  private readonly known = new Map<string, BlobInfo>();

  constructor(private readonly parts: StoreParts, private readonly fs: WriteFs) {}

  /** Builds a one-row database and writes it atomically; the sql.js work is bounded by the row. */
  private async writeOnce(path: string, fill: (db: Database) => void): Promise<void> {
    const db = newDatabase(this.parts.SQL);
    let data: Uint8Array;
    try {
      fill(db);
      data = db.export();
    } finally {
      db.close();
    }
    await writeAtomically(this.fs, path, data, this.parts.layout.writer);
  }

  async put(sessionId: string, blob: { toolName: string; toolCallId?: string; content: Uint8Array; measured?: { sha256: string; lineCount: number } }): Promise<BlobInfo> {
    const { layout } = this.parts;
    const measured = blob.measured ?? (await measureContent(blob.content));
    const info: BlobInfo = {
      id: newId('r'),
      sessionId,
      toolName: blob.toolName,
      toolCallId: blob.toolCallId,
      byteSize: blob.content.length,
      lineCount: measured.lineCount,
      sha256: measured.sha256,
      createdAt: this.parts.now(),
    };
    const parts = blob.content.length > BLOB_PART_BYTES ? Math.ceil(blob.content.length / BLOB_PART_BYTES) : 0;
    const written: string[] = [];
    try {
      await fsp.mkdir(layout.blobsDir, { recursive: true });
      for (let part = 0; part < parts; part++) {
        const path = layout.blobPartPath(info.id, part);
        const slice = blob.content.subarray(part * BLOB_PART_BYTES, (part + 1) * BLOB_PART_BYTES);
        await this.writeOnce(path, (db) => db.run('INSERT INTO tool_result_blob_parts (blob_id, part, content) VALUES (?, ?, ?)', [info.id, part, slice]));
        written.push(path);
        await nextTurn();
      }
      await this.writeOnce(layout.blobPath(info.id), (db) =>
        db.run('INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at, part_count, part_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          info.id, sessionId, info.toolName, info.toolCallId ?? null, parts ? null : blob.content, info.byteSize, info.lineCount, info.sha256, info.createdAt, parts, parts ? BLOB_PART_BYTES : 0,
        ]),
      );
    } catch (error) {
      await Promise.all(written.map((path) => fsp.rm(path, { force: true }).catch(() => undefined)));
      this.parts.problems.writeFailed(layout.blobPath(info.id), error);
      throw error;
    }
    const segment = await ownDb(this.parts, this.parts.own.segmentPath(sessionId));
    segment.run('INSERT OR REPLACE INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)', [
      info.id, sessionId, info.toolName, info.toolCallId ?? null, info.byteSize, info.lineCount, info.sha256, info.createdAt,
    ]);
    this.known.set(info.id, info);
    return info;
  }

  /** Why a stored result's file gave nothing, or undefined when it simply does not exist. */
  private async unreadable(refId: string, path: string): Promise<Error | undefined> {
    const movedTo = await this.parts.reads.setAsideCopy(path);
    if (movedTo) return new Error(`the stored result "${refId}" could not be read: its file was damaged and has been set aside (${movedTo})`);
    const present = await fsp.stat(path).then(() => true, () => false);
    if (!present) return undefined;
    const why = this.parts.reads.isNewerSchema(path) ? 'it was written by a newer version of Tally' : 'its file could not be opened or is incomplete';
    return new Error(`the stored result "${refId}" could not be read: ${why}`);
  }

  async info(refId: string): Promise<BlobInfo | undefined> {
    if (!REF_PATTERN.test(refId)) return undefined;
    const known = this.known.get(refId);
    if (known) return known;
    const path = this.parts.layout.blobPath(refId);
    const found = await this.parts.reads.once(path, (db) => ({ row: rows(db, `SELECT ${INFO_COLUMNS} FROM tool_result_blobs WHERE id = ?`, [refId])[0] }));
    if (!found) {
      const unreadable = await this.unreadable(refId, path);
      if (unreadable) throw unreadable;
      return undefined;
    }
    if (!found.row) return undefined;
    const info = blobInfoOf(found.row);
    this.known.set(refId, info);
    return info;
  }

  async read(refId: string, offset: number, limit: number): Promise<BlobSlice> {
    const { layout, reads } = this.parts;
    const info = await this.info(refId);
    if (!info) throw new Error(`no stored result has ref_id "${refId}"`);
    const start = Math.max(0, Math.min(Math.floor(offset), info.byteSize));
    const length = Math.max(0, Math.min(Math.floor(limit), info.byteSize - start));
    const unreadable = async (path: string) => (await this.unreadable(refId, path)) ?? new Error(`the stored result "${refId}" could not be read: ${basename(path)} is missing`);
    const layoutOf = await reads.once(layout.blobPath(refId), (db) => {
      const [r] = rows(db, 'SELECT part_count, part_bytes, CASE WHEN part_count = 0 THEN substr(content, ?, ?) END AS part FROM tool_result_blobs WHERE id = ?', [start + 1, length, refId]);
      return r && { parts: Number(r.part_count), partBytes: Number(r.part_bytes), inline: r.part instanceof Uint8Array ? r.part : new Uint8Array(0) };
    });
    if (!layoutOf) throw await unreadable(layout.blobPath(refId));
    if (layoutOf.parts === 0 || length === 0) return { bytes: layoutOf.inline, offset: start, totalBytes: info.byteSize };
    const bytes = new Uint8Array(length);
    for (let part = Math.floor(start / layoutOf.partBytes); part * layoutOf.partBytes < start + length; part++) {
      const partStart = part * layoutOf.partBytes;
      const from = Math.max(start, partStart);
      const to = Math.min(start + length, partStart + layoutOf.partBytes);
      const partPath = layout.blobPartPath(refId, part);
      const chunk = await reads.once(partPath, (db) => {
        const [r] = rows(db, 'SELECT substr(content, ?, ?) AS part FROM tool_result_blob_parts WHERE blob_id = ? AND part = ?', [from - partStart + 1, to - from, refId, part]);
        return r?.part instanceof Uint8Array ? r.part : undefined;
      });
      if (!chunk) throw await unreadable(partPath);
      if (chunk.length !== to - from) throw new Error(`the stored result "${refId}" could not be read: part ${part} is shorter than recorded`);
      bytes.set(chunk, from - start);
    }
    return { bytes, offset: start, totalBytes: info.byteSize };
  }

  async list(sessionId: string): Promise<BlobInfo[]> {
    const byId = new Map<string, BlobInfo>();
    await eachSessionDb(this.parts, sessionId, SEGMENT_FILE, (db) => {
      for (const r of rows(db, `SELECT ${INFO_COLUMNS} FROM tool_result_blobs WHERE session_id = ?`, [sessionId])) byId.set(String(r.id), blobInfoOf(r));
    });
    return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt);
  }
}
