import { promises as fsp } from 'fs';
import { basename } from 'path';
import { rows } from '../sql/connection';
import { blobInfoOf, INFO_COLUMNS } from './blobInfoRows';
import type { StoreParts } from '../storeParts';
import type { BlobInfo, BlobSlice } from '../../../core/ports/blobStore';

/**
 * Results stored by earlier versions, one sql.js database each (`blobs/<ref>.sqlite`, and part
 * files `<ref>.p<N>.sqlite` for large ones): read only, never written again. Each file is read
 * once and let go.
 */
export class LegacyBlobs {
  constructor(private readonly parts: StoreParts) {}

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
    const path = this.parts.layout.blobPath(refId);
    const found = await this.parts.reads.once(path, (db) => ({ row: rows(db, `SELECT ${INFO_COLUMNS} FROM tool_result_blobs WHERE id = ?`, [refId])[0] }));
    if (!found) {
      const unreadable = await this.unreadable(refId, path);
      if (unreadable) throw unreadable;
      return undefined;
    }
    return found.row ? blobInfoOf(found.row) : undefined;
  }

  async read(info: BlobInfo, start: number, length: number): Promise<BlobSlice> {
    const { layout, reads } = this.parts;
    const refId = info.id;
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
}
