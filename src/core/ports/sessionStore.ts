import type { CompactionHead } from '../model/compactionHead';
import type { Message } from '../model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../model/records';
import type { BlobStore } from './blobStore';

/** The records Tally keeps per session. All methods are safe to call before the first flush. */

export interface SessionInfo {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  model?: string;
  /** Free-form origin: 'chat', 'replay:<file>', 'import:<file>'. */
  origin?: string;
}

export interface SessionSnapshot {
  sessionId: string;
  /** The working context right after a compaction; resume starts from it. */
  messages: Message[];
  tokenCount: number;
  /** The compaction event that produced it. */
  compactionId: string;
  /** Transcript messages created after this time are appended on resume. */
  createdAt: number;
}

export interface RecentTranscript {
  messages: Message[];
  complete: boolean;
  /** When not complete: the messages are those created after this time. */
  createdAfter?: number;
}

/** The tool calls of a session's transcript and when each result was recorded, read without the results' content. */
export interface ToolCallIndex {
  calls: Map<string, { name: string; arguments: string }>;
  /** Each answered call's result: its message time. */
  resultTimes: Map<string, number>;
}

export interface StoreProblem {
  at: number;
  file: string;
  /**
   * `recovered`: a session whose row was unreadable was rebuilt from its messages.
   * `read-only`: the store folder cannot be written; sessions are read, changes stay in memory.
   * `in-memory`: the store folder cannot be used at all; sessions live in memory only.
   */
  kind: 'corrupt' | 'newer-schema' | 'write-failed' | 'read-failed' | 'recovered' | 'read-only' | 'in-memory';
  message: string;
  /** Where a corrupt file was moved. */
  movedTo?: string;
}

/** A past session a search found: by its title, its messages' text, or both. */
export interface SessionSearchHit {
  session: SessionInfo;
  /** The title holds what was searched. */
  matchedTitle: boolean;
  /** The words around the latest message that matched, the matched words between « and », and that message's time. */
  snippet?: string;
  at?: number;
}

export interface SessionStore extends BlobStore {
  readonly problems: readonly StoreProblem[];
  onProblem(listener: (problem: StoreProblem) => void): () => void;

  createSession(init: Partial<SessionInfo> & { title: string }): Promise<SessionInfo>;
  updateSession(id: string, patch: Partial<Omit<SessionInfo, 'id'>>): Promise<void>;
  getSession(id: string): Promise<SessionInfo | undefined>;
  listSessions(): Promise<SessionInfo[]>;
  deleteSession(id: string): Promise<void>;
  /** Sessions whose title holds `query` or whose messages hold every word of it, newest first (at most `limit`, default 50). */
  searchSessions(query: string, options?: { limit?: number }): Promise<SessionSearchHit[]>;
  /** Called after this window created, updated or deleted a session (whether or not the write succeeded), so a kept list knows it is stale. */
  onSessionsChanged(listener: () => void): () => void;

  /** Insert or replace transcript messages by id (used for new messages and memoized token counts). */
  putMessages(sessionId: string, messages: Message[]): Promise<void>;
  /** The whole transcript, oldest first; with `createdAfter`, only the messages created after that time. */
  loadTranscript(sessionId: string, options?: { createdAfter?: number }): Promise<Message[]>;
  /**
   * The recent part of the transcript, oldest first: about the `count` newest messages (all of them
   * when the session holds no more), read without opening the files of older ones. `complete`
   * says whether nothing older is left. With `createdUpTo`, only messages created at or before
   * that time are considered: the page before one read earlier (whose `createdAfter` it is).
   */
  loadRecentTranscript(sessionId: string, count: number, options?: { createdUpTo?: number }): Promise<RecentTranscript>;
  /** The latest stored copy of each message in `ids` that is stored, oldest first, without decoding the rest of the transcript. */
  loadMessages(sessionId: string, ids: readonly string[]): Promise<Message[]>;
  /** Every tool call of the transcript and its result's time, without decoding any result's content (which is most of a transcript). */
  loadToolCallIndex(sessionId: string): Promise<ToolCallIndex>;
  /**
   * Whether each transcript message created at or before `createdUpTo` is pinned now (the latest
   * stored copy that states a pin state), without reading the messages themselves: resume applies
   * the pins to a snapshot's messages.
   */
  loadPins(sessionId: string, createdUpTo: number): Promise<Map<string, boolean>>;

  saveSnapshot(snapshot: SessionSnapshot): Promise<void>;
  loadSnapshot(sessionId: string): Promise<SessionSnapshot | undefined>;

  addCompactionEvent(event: CompactionEventRecord): Promise<void>;
  /** Whole records, with every item each compaction removed and added (a long session's are large: views list the heads). */
  listCompactionEvents(sessionId: string): Promise<CompactionEventRecord[]>;
  /** Each record's head: its figures, summary and first removed items, without the whole lists. */
  listCompactionHeads(sessionId: string): Promise<CompactionHead[]>;
  /** One whole record; undefined when it is not stored. */
  loadCompactionEvent(sessionId: string, compactionId: string): Promise<CompactionEventRecord | undefined>;

  addRequestUsage(record: RequestUsageRecord): Promise<void>;
  /** Usage records in request order; `{ items: false }` skips rebuilding each request's item list (left empty). */
  listRequestUsage(sessionId: string, options?: { items?: boolean }): Promise<RequestUsageRecord[]>;
  /**
   * One request's usage record with its item list, without reading the other requests' lists (the
   * first stored, if two share the index). `{ items: false }`: its figures alone (items left empty).
   */
  requestUsageAt(sessionId: string, requestIndex: number, options?: { items?: boolean }): Promise<RequestUsageRecord | undefined>;
  /** One past the highest request index of the usage records (0 when none), without reading them. */
  nextRequestIndex(sessionId: string): Promise<number>;

  /** Write everything pending to disk now (atomic). */
  flush(): Promise<void>;
  /** Flush and release resources. */
  close(): Promise<void>;
}
