/**
 * Tally's store on sql.js: a facade over its parts (see docs/ARCHITECTURE.md, "Storage layout").
 *   files/     where each file lives, opening, checking, saving with retries, heartbeats, leftovers
 *   sql/       the sql.js runtime, connections, schema, prepared statements
 *   segments/  transcript, snapshots, compaction events and usage records in a session's segments
 *   index/     session rows and their recovery, and the session list
 *   blobs/     offloaded results and their parts
 *   merge/     merging the files of closed windows
 * Every store instance ("writer", one per VS Code window) writes only files named with its own id,
 * so two windows never overwrite each other; reads merge every writer's files.
 */
import { randomBytes } from 'crypto';
import type { Database, SqlJsStatic } from 'sql.js';
import type { Message } from '../../core/model/message';
import { nodeWriteFs, withoutSync, type WriteFs } from './files/atomicFile';
import { ResultBlobs } from './blobs/resultBlobs';
import { CheckedFiles } from './files/checkedFiles';
import { cleanLeftovers, cleanSessionLeftovers } from './files/crashLeftovers';
import { ClosedWriterMerge } from './merge/closedWriterMerge';
import { DatabaseBudget } from './files/databaseBudget';
import { Flusher, type SaveTimers, type StoreMode } from './files/flusher';
import { FolderListings } from './files/folderListings';
import { SEGMENT_FILE, SESSION_PATTERN, StoreLayout } from './files/storeLayout';
import { OpenDatabases } from './files/openDatabases';
import { OwnFiles } from './files/ownFiles';
import { StoreProblems } from './files/storeProblems';
import { errorText } from './files/storeErrors';
import { SealedLists, segmentLists } from './segments/sealedLists';
import { SessionIndex } from './sessionIndex/sessionIndex';
import { SessionSearch } from './sessionIndex/sessionSearch';
import { SearchBackfill } from './sessionIndex/searchBackfill';
import { TranscriptRecords } from './segments/transcriptRecords';
import { MessageBodyFiles } from './segments/messageBodyFiles';
import { UsageRecords } from './segments/usageRecords';
import { SessionInfoFiles } from './sessionIndex/sessionInfoFiles';
import { segmentFacts, SegmentSummaries } from './segments/segmentSummaries';
import type { StoreParts } from './storeParts';
import type { RecentTranscript, SessionInfo, SessionSearchHit, SessionSnapshot, SessionStore, StoreProblem, ToolCallIndex } from '../../core/ports/sessionStore';
import type { BlobInfo, BlobSlice } from '../../core/ports/blobStore';
import type { CompactionEventRecord, RequestUsageRecord } from '../../core/model/records';
import type { CompactionHead } from '../../core/model/compactionHead';
import { liveWriters, WriterHeartbeat } from './files/writerLiveness';

export interface StoreOptions {
  wasmPath?: string;
  debounceMs?: number;
  /** The clock timed saves are scheduled on (default: the real one). */
  timers?: SaveTimers;
  now?: () => number;
  log?: (line: string) => void;
  /** A segment is sealed once its file passes this size (default 2 MiB). */
  segmentMaxBytes?: number;
  fs?: WriteFs;
  /** Most databases open at once (default 128); the least recently used is closed first. */
  maxOpenDatabases?: number;
  /** How `openStore` checks that the folder can be written (tests simulate a read-only folder). */
  probeWrite?: (path: string) => Promise<void>;
  /** Set by `openStore` when the folder cannot be written (default `disk`). */
  mode?: StoreMode;
  /**
   * `false`: never wait for the disk (no fsync). Only for a store deleted when its process exits,
   * such as the replay CLI's: a crash there loses nothing anyone keeps.
   */
  sync?: boolean;
  /**
   * Keep everything in memory and never touch the folder: for a store thrown away when its
   * process exits (the replay CLI and its benches), where writing files buys nothing.
   */
  inMemory?: boolean;
}

export class SqlJsStore implements SessionStore {
  readonly writer = `w${process.pid.toString(36)}${randomBytes(4).toString('hex')}`;
  readonly mode: StoreMode;
  private readonly budget: DatabaseBudget;
  private readonly parts: StoreParts;
  private readonly problemSink: StoreProblems;
  private readonly heartbeat: WriterHeartbeat;
  private readonly index: SessionIndex;
  private readonly search: SessionSearch;
  private readonly searchBackfill: SearchBackfill;
  private readonly sessions: SessionInfoFiles;
  private readonly records: TranscriptRecords;
  private readonly usage: UsageRecords;
  private readonly blobs: ResultBlobs;
  private readonly closedWriters: ClosedWriterMerge;
  private writeSeq = 0;
  private indexMerge?: Promise<void>;
  private sessionCleanup?: Promise<void>;
  private sessionCleanupWanted = false;
  private readonly sessionListeners = new Set<() => void>();

  constructor(readonly root: string, SQL: SqlJsStatic, options: StoreOptions = {}) {
    const now = options.now ?? Date.now;
    const fs = options.sync === false ? withoutSync(options.fs ?? nodeWriteFs) : (options.fs ?? nodeWriteFs);
    this.mode = options.mode ?? 'disk';
    const layout = new StoreLayout(root, this.writer);
    this.budget = new DatabaseBudget(options.maxOpenDatabases);
    this.problemSink = new StoreProblems(now, options.log);
    // A cache of checks: losing it costs only checks, so it is never fsynced.
    const checked = new CheckedFiles(root, withoutSync(fs), this.writer, this.mode === 'disk');
    const folders = new FolderListings();
    const reads = new OpenDatabases(SQL, this.budget, this.problemSink, now, checked, (path) => folders.forgetFolderOf(path));
    const own = new OwnFiles(SQL, this.budget, reads, layout);
    const summaries = new SegmentSummaries((id) => layout.sessionDir(id), withoutSync(fs), this.writer, this.mode === 'disk');
    const flusher = new Flusher(own, this.problemSink, { fs, timers: options.timers, writer: this.writer, debounceMs: options.debounceMs ?? 250, segmentMaxBytes: options.segmentMaxBytes ?? 2 * 1024 * 1024, mode: this.mode, savedLast: layout.indexDir, beforeSave: async () => {
      await this.blobs.syncPending();
      await checked.save();
    }, onSealed: (path, db) => this.recordFinalSegments([[path, db]]), onSaved: (path) => folders.forgetFolderOf(path) });
    // At the bound with every database holding unsaved changes, they are saved so they can be closed.
    this.budget.setRelief(() => flusher.saveForRoom());
    this.parts = { SQL, layout, problems: this.problemSink, reads, own, flusher, summaries, sealedLists: new SealedLists(), folders, now, stamp: () => now() * 1000 + (this.writeSeq++ % 1000) };
    this.heartbeat = new WriterHeartbeat(root, this.writer);
    this.index = new SessionIndex(this.parts);
    this.search = new SessionSearch(this.parts);
    this.searchBackfill = new SearchBackfill(this.parts, this.search, { load: (id) => this.loadTranscript(id) }, withoutSync(fs));
    this.blobs = new ResultBlobs(this.parts, fs, this.mode);
    this.records = new TranscriptRecords(this.parts, new MessageBodyFiles(this.parts, this.blobs.files, this.mode));
    this.usage = new UsageRecords(this.parts);
    this.closedWriters = new ClosedWriterMerge(this.parts);
    this.sessions = new SessionInfoFiles(this.parts, this.index, (id) => this.loadTranscript(id));
  }

  get problems(): readonly StoreProblem[] {
    return this.problemSink.list;
  }

  onProblem(listener: (problem: StoreProblem) => void): () => void {
    return this.problemSink.onProblem(listener);
  }

  /** Reports a problem found while opening the store (a folder that cannot be written). */
  reportProblem(problem: Omit<StoreProblem, 'at'>): void {
    this.problemSink.report(problem);
  }

  /** Databases open now, the most ever open at once, and the bound they are kept under. */
  get openDatabases(): { open: number; peak: number; max: number } {
    return { open: this.budget.open, peak: this.budget.peak, max: this.budget.max };
  }

  /** Marks this writer as alive for other windows (see writerLiveness.ts). */
  startHeartbeat(): Promise<void> {
    return this.heartbeat.start();
  }

  /**
   * Removes what crashed writers left behind. Session folders are cleaned in the background once
   * the first listing is done (it reads the same folder of folders; the two together held the
   * first listing back), or at close if nothing listed the sessions.
   */
  async cleanTempFiles(): Promise<void> {
    await cleanLeftovers(this.parts.layout, this.parts.now());
    this.sessionCleanupWanted = true;
  }

  private startSessionCleanup(): void {
    if (!this.sessionCleanupWanted) return;
    this.sessionCleanupWanted = false;
    this.sessionCleanup = cleanSessionLeftovers(this.parts.layout, this.parts.now()).catch(() => undefined);
  }

  /**
   * Merges the session-list files of closed windows into this window's (see sessionIndex.ts). It
   * runs in the background: until it is done, listings read those files as they are.
   */
  absorbClosedIndexes(): void {
    this.indexMerge = liveWriters(this.root, this.parts.now())
      .then((live) => this.index.absorbClosed(live))
      .catch((error) => this.problemSink.info(`store: merging closed windows' session lists failed: ${errorText(error)}`));
  }

  flush(): Promise<void> {
    return this.parts.flusher.flush();
  }

  async close(): Promise<void> {
    if (this.parts.flusher.isClosed) return;
    this.startSessionCleanup();
    await Promise.all([this.indexMerge, this.sessionCleanup, this.closedWriters.settled(), this.searchBackfill.stop()]);
    try {
      await this.parts.flusher.close();
      // This writer never writes again: the facts of its saved segments hold for good.
      await this.recordFinalSegments(this.parts.own.entries().filter(([path, file]) => SEGMENT_FILE.test(path) && file.saved && !file.dirty).map(([path, file]) => [path, file.db]));
      if (this.mode === 'disk') await this.parts.summaries.save(undefined, true); // the facts' logs folded, once per window
    } finally {
      if (this.mode === 'disk') await this.heartbeat.stop().catch(() => undefined);
      this.parts.own.closeAll();
      this.parts.reads.closeAll();
    }
  }

  /** Records the facts of this writer's segments that will never change again (see segmentSummaries.ts). */
  private async recordFinalSegments(segments: Array<[string, Database]>): Promise<void> {
    if (this.mode !== 'disk') return;
    for (const [path, db] of segments) {
      const segment = StoreLayout.segmentOf(path);
      if (!segment) continue;
      await this.parts.summaries.record(segment.sessionId, path, segmentFacts(db, segment.sessionId), undefined, true, segmentLists(db, segment.sessionId));
    }
    await this.parts.summaries.save();
  }

  createSession(init: Partial<SessionInfo> & { title: string }): Promise<SessionInfo> {
    return this.sessionWrite(this.sessions.create(init));
  }

  getSession(id: string): Promise<SessionInfo | undefined> {
    return this.read(id, () => this.sessions.get(id));
  }

  updateSession(id: string, patch: Partial<Omit<SessionInfo, 'id'>>): Promise<void> {
    return this.sessionWrite(this.sessions.update(id, patch));
  }

  async listSessions(): Promise<SessionInfo[]> {
    const list = await this.sessions.list();
    this.startSessionCleanup();
    return list;
  }

  deleteSession(id: string): Promise<void> {
    return this.sessionWrite(this.sessions.delete(id));
  }

  onSessionsChanged(listener: () => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  private sessionWrite<T>(write: Promise<T>): Promise<T> {
    return write.finally(() => {
      for (const listener of this.sessionListeners) {
        try {
          listener();
        } catch {
          // A listener's failure must not fail the write.
        }
      }
    });
  }

  async putMessages(sessionId: string, messages: Message[]): Promise<void> {
    await this.records.putMessages(sessionId, messages);
    // The messages are stored; a failure to index them for search is reported, not thrown.
    await this.search.index(sessionId, messages).catch((error: unknown) => this.problemSink.report({ file: this.parts.layout.indexDir, kind: 'write-failed', message: `indexing messages for search failed: ${errorText(error)}` }));
  }

  async searchSessions(query: string, options: { limit?: number } = {}): Promise<SessionSearchHit[]> {
    const sessions = await this.listSessions();
    const hits = await this.search.search(query, sessions, options.limit);
    // Sessions written before search existed are indexed in the background once a first search is answered.
    if (this.mode === 'disk') this.searchBackfill.start(sessions);
    return hits;
  }

  /** Resolves once the indexing of older sessions for search, if started, is done (for tests and benches). */
  olderSessionsIndexed(): Promise<void> {
    return this.searchBackfill.settled();
  }

  /**
   * A read of a session's files. Loading a session starts the merge of closed windows' files in
   * the background (`merge`); no read waits for it (see merge/closedWriterMerge.ts). Reads running
   * together share one listing of the session's folder (see files/folderListings.ts).
   */
  private read<T>(sessionId: string, run: () => Promise<T>, merge = false): Promise<T> {
    if (merge) this.closedWriters.start(sessionId);
    const shared = () => (SESSION_PATTERN.test(sessionId) ? this.parts.folders.during(this.parts.layout.sessionDir(sessionId), run) : run());
    return this.closedWriters.reading(sessionId, shared);
  }

  /** Resolves once every merge of closed windows' files started so far is done. */
  closedWindowsMerged(): Promise<void> {
    return this.closedWriters.settled();
  }

  loadTranscript(sessionId: string, options: { createdAfter?: number } = {}): Promise<Message[]> {
    return this.read(sessionId, () => this.records.loadTranscript(sessionId, options.createdAfter), true);
  }

  loadRecentTranscript(sessionId: string, count: number, options: { createdUpTo?: number } = {}): Promise<RecentTranscript> {
    return this.read(sessionId, async () => {
      const { messages, createdAfter } = await this.records.loadRecent(sessionId, count, options.createdUpTo);
      return createdAfter === undefined ? { messages, complete: true } : { messages, complete: false, createdAfter };
    }, true);
  }

  loadMessages(sessionId: string, ids: readonly string[]): Promise<Message[]> {
    return this.read(sessionId, () => this.records.loadMessages(sessionId, ids), true);
  }

  loadToolCallIndex(sessionId: string): Promise<ToolCallIndex> {
    return this.read(sessionId, () => this.records.toolCallIndex(sessionId), true);
  }

  loadPins(sessionId: string, createdUpTo: number): Promise<Map<string, boolean>> {
    return this.read(sessionId, () => this.records.loadPins(sessionId, createdUpTo), true);
  }

  putBlob(sessionId: string, blob: { toolName: string; toolCallId?: string; content: Uint8Array; measured?: { sha256: string; lineCount: number } }): Promise<BlobInfo> {
    return this.blobs.put(sessionId, blob);
  }

  getBlobInfo(sessionId: string, refId: string): Promise<BlobInfo | undefined> {
    return this.blobs.info(sessionId, refId);
  }

  readBlob(sessionId: string, refId: string, offset: number, limit: number): Promise<BlobSlice> {
    return this.blobs.read(sessionId, refId, offset, limit);
  }

  shareBlobs(fromSessionId: string, toSessionId: string, refIds: readonly string[]): Promise<BlobInfo[]> {
    return this.blobs.share(fromSessionId, toSessionId, refIds);
  }

  listBlobs(sessionId: string): Promise<BlobInfo[]> {
    return this.read(sessionId, () => this.blobs.list(sessionId));
  }

  saveSnapshot(snapshot: SessionSnapshot): Promise<void> {
    return this.records.saveSnapshot(snapshot);
  }

  loadSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    return this.read(sessionId, () => this.records.loadSnapshot(sessionId));
  }

  addCompactionEvent(event: CompactionEventRecord): Promise<void> {
    return this.records.addCompactionEvent(event);
  }

  listCompactionEvents(sessionId: string): Promise<CompactionEventRecord[]> {
    return this.read(sessionId, () => this.records.listCompactionEvents(sessionId));
  }

  listCompactionHeads(sessionId: string): Promise<CompactionHead[]> {
    return this.read(sessionId, () => this.records.listCompactionHeads(sessionId));
  }

  loadCompactionEvent(sessionId: string, compactionId: string): Promise<CompactionEventRecord | undefined> {
    return this.read(sessionId, () => this.records.loadCompactionEvent(sessionId, compactionId));
  }

  addRequestUsage(record: RequestUsageRecord): Promise<void> {
    return this.usage.addRequestUsage(record);
  }

  listRequestUsage(sessionId: string, options?: { items?: boolean }): Promise<RequestUsageRecord[]> {
    return this.read(sessionId, () => this.usage.listRequestUsage(sessionId, options));
  }

  requestUsageAt(sessionId: string, requestIndex: number, options?: { items?: boolean }): Promise<RequestUsageRecord | undefined> {
    return this.read(sessionId, () => (options?.items === false ? this.usage.figuresAt(sessionId, requestIndex) : this.usage.requestUsageAt(sessionId, requestIndex)));
  }

  nextRequestIndex(sessionId: string): Promise<number> {
    return this.read(sessionId, () => this.usage.nextRequestIndex(sessionId), true);
  }
}
