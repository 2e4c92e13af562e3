import { newRefId } from '../../../core/model/ids';
import { BlobFiles, type RefRecord } from './blobFiles';
import type { WriteFs } from '../files/atomicFile';
import type { StoreMode } from '../files/flusher';
import { REF_PATTERN, SEGMENT_FILE } from '../files/storeLayout';
import { blobInfoOf } from './blobInfoRows';
import { LegacyBlobs } from './legacyBlobs';
import { noResultInSession, ownsResult } from '../../../core/toolOutput/resultOwnership';
import { scanOutput } from '../../../core/toolOutput/scan';
import '../../usePlatform';
import { rows } from '../sql/connection';
import { runPrepared } from '../sql/preparedStatements';
import { eachListRow } from '../segments/segmentReads';
import { eachSessionDb, ownDb, type StoreParts } from '../storeParts';
import type { BlobInfo, BlobSlice } from '../../../core/ports/blobStore';

/**
 * Offloaded tool results: written as files (see blobFiles.ts) and indexed in the session's
 * segment; results stored by earlier versions are still read from their databases.
 */
export class ResultBlobs {
  private readonly refs = new Map<string, RefRecord>();
  private readonly legacyKnown = new Map<string, BlobInfo>();
  /** Results of a store whose folder cannot be written: kept for this window only. */
  private readonly inMemory = new Map<string, Uint8Array>();
  /** The files results are written to; large message bodies share them (see segments/messageBodyFiles.ts). */
  readonly files: BlobFiles;
  private readonly legacy: LegacyBlobs;

  constructor(private readonly parts: StoreParts, fs: WriteFs, private readonly mode: StoreMode) {
    this.files = new BlobFiles(parts, fs);
    this.legacy = new LegacyBlobs(parts);
  }

  /** Waits for the disk on every result written since the last call (run before each save). */
  syncPending(): Promise<void> {
    return this.files.syncPending();
  }

  async put(sessionId: string, blob: { toolName: string; toolCallId?: string; content: Uint8Array; measured?: { sha256: string; lineCount: number } }): Promise<BlobInfo> {
    const measured = blob.measured ?? (await scanOutput(blob.content));
    const info: BlobInfo = {
      id: newRefId(),
      sessionId,
      toolName: blob.toolName,
      toolCallId: blob.toolCallId,
      byteSize: blob.content.length,
      lineCount: measured.lineCount,
      sha256: measured.sha256,
      createdAt: this.parts.now(),
    };
    let record: RefRecord = { ...info, partBytes: blob.content.length };
    try {
      if (this.mode === 'disk') record = await this.files.write(info, blob.content);
      else this.inMemory.set(info.id, blob.content.slice());
    } catch (error) {
      this.parts.problems.writeFailed(this.parts.layout.refPath(info.id), error);
      throw error;
    }
    await this.listIn(sessionId, info);
    this.refs.set(info.id, record);
    return info;
  }

  /**
   * A row in the session's segment, so the session's results list it. The row names the session
   * that lists it; who may read the result is the ref file's (its owner and `sharedWith`).
   */
  private async listIn(sessionId: string, info: BlobInfo): Promise<void> {
    const segment = await ownDb(this.parts, this.parts.own.segmentPath(sessionId));
    runPrepared(segment, 'INSERT OR REPLACE INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)', [
      info.id, sessionId, info.toolName, info.toolCallId ?? null, info.byteSize, info.lineCount, info.sha256, info.createdAt,
    ]);
  }

  /**
   * `toSessionId` may read each result of `refIds` that `fromSessionId` may read: its ref file is
   * written again with the session added to `sharedWith` (read from the disk first, so a share
   * another window wrote is kept), and the session lists it. Results stored by earlier versions
   * (in databases) and damaged ones are not shared.
   */
  async share(fromSessionId: string, toSessionId: string, refIds: readonly string[]): Promise<BlobInfo[]> {
    const shared: BlobInfo[] = [];
    for (const refId of new Set(refIds)) {
      const found = await this.findFor(fromSessionId, refId).catch(() => undefined);
      if (!found?.record) continue;
      const latest = this.mode === 'disk' ? ((await this.files.readRef(refId).catch(() => undefined)) ?? found.record) : found.record;
      const record: RefRecord = { ...latest, sharedWith: [...new Set([...(latest.sharedWith ?? []), toSessionId])] };
      try {
        if (this.mode === 'disk') await this.files.rewriteRef(record);
      } catch (error) {
        this.parts.problems.writeFailed(this.parts.layout.refPath(refId), error);
        throw error;
      }
      this.refs.set(refId, record);
      const { partBytes: _partBytes, partHashes: _partHashes, ...info } = record;
      await this.listIn(toSessionId, info);
      shared.push(info);
    }
    return shared;
  }

  private async find(refId: string): Promise<{ record?: RefRecord; legacy?: BlobInfo } | undefined> {
    const known = this.refs.get(refId);
    if (known) return { record: known };
    const legacyKnown = this.legacyKnown.get(refId);
    if (legacyKnown) return { legacy: legacyKnown };
    const record = await this.files.readRef(refId);
    if (record) {
      this.refs.set(refId, record);
      return { record };
    }
    const movedTo = await this.parts.reads.setAsideCopy(this.parts.layout.refPath(refId));
    if (movedTo) throw new Error(`the stored result "${refId}" could not be read: its file was damaged and has been set aside (${movedTo})`);
    const legacy = await this.legacy.info(refId);
    if (!legacy) return undefined;
    this.legacyKnown.set(refId, legacy);
    return { legacy };
  }

  /**
   * The result as `sessionId` may see it: undefined when it is unknown or another session's. A
   * damaged ref file does not say whose it is: the damage is reported only to a session whose
   * own files list the result.
   */
  private async findFor(sessionId: string, refId: string): Promise<{ record?: RefRecord; legacy?: BlobInfo } | undefined> {
    if (!REF_PATTERN.test(refId)) return undefined;
    let found;
    try {
      found = await this.find(refId);
    } catch (error) {
      if (await this.listedBy(sessionId, refId)) throw error;
      return undefined;
    }
    if (found?.record && !ownsResult(sessionId, found.record) && this.mode === 'disk') {
      // Kept from an earlier read: another window may have shared it since (a fork made there).
      const fresh = await this.files.readRef(refId).catch(() => undefined);
      if (fresh) this.refs.set(refId, (found = { record: fresh }).record!);
    }
    return found && ownsResult(sessionId, found.record ?? found.legacy!) ? found : undefined;
  }

  private async listedBy(sessionId: string, refId: string): Promise<boolean> {
    let listed = false;
    await eachSessionDb(this.parts, sessionId, SEGMENT_FILE, (db) => {
      listed ||= rows(db, 'SELECT 1 FROM tool_result_blobs WHERE id = ? AND session_id = ?', [refId, sessionId]).length > 0;
    });
    return listed;
  }

  async info(sessionId: string, refId: string): Promise<BlobInfo | undefined> {
    const found = await this.findFor(sessionId, refId);
    if (!found) return undefined;
    if (found.legacy) return found.legacy;
    const { partBytes: _partBytes, partHashes: _partHashes, ...info } = found.record!;
    return info;
  }

  async read(sessionId: string, refId: string, offset: number, limit: number): Promise<BlobSlice> {
    const found = await this.findFor(sessionId, refId);
    if (!found) throw noResultInSession(refId);
    const info = found.record ?? found.legacy!;
    const start = Math.max(0, Math.min(Math.floor(offset), info.byteSize));
    const length = Math.max(0, Math.min(Math.floor(limit), info.byteSize - start));
    if (found.legacy) return this.legacy.read(found.legacy, start, length);
    const kept = this.inMemory.get(refId);
    if (kept) return { bytes: kept.slice(start, start + length), offset: start, totalBytes: info.byteSize };
    const bytes = length === 0 ? new Uint8Array(0) : await this.files.readRange(found.record!, start, length);
    return { bytes, offset: start, totalBytes: info.byteSize };
  }

  async list(sessionId: string): Promise<BlobInfo[]> {
    const byId = new Map<string, BlobInfo>();
    await eachListRow(this.parts, sessionId, 'blobs', (r) => byId.set(String(r.id), blobInfoOf(r)));
    return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt);
  }
}
