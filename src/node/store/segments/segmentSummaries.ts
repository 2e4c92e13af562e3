import { promises as fsp } from 'fs';
import { basename, join } from 'path';
import type { Database } from 'sql.js';
import { writeAtomically, type WriteFs } from '../files/atomicFile';
import type { SegmentListRows } from './sealedLists';
import { rows } from '../sql/connection';

/** What resuming a session needs from one segment, so that a segment it does not need is never opened. */
export interface SegmentFacts {
  /** The newest message's createdAt in the segment (0 when it holds no message). */
  maxCreatedAt: number;
  /** The oldest message's createdAt (0 when it holds no message; absent in facts recorded before it was kept). */
  minCreatedAt?: number;
  /** Every row that states a pin state: [message id, createdAt, written, pinned]. */
  pins: Array<[string, number, number, boolean]>;
  /** The highest request index of its usage rows (-1 when it holds none). */
  maxRequestIndex: number;
  /** The lowest request index of its usage rows (-1 when it holds none; absent in facts recorded before it was kept). */
  minRequestIndex?: number;
}

interface Summary extends SegmentFacts {
  size: number;
  mtimeMs: number;
  /** The lists every open of the session reads (see sealedLists.ts), so an open needs not load the file. */
  lists?: SegmentListRows;
}

/** A file is summarized only once it has not changed for this long (file times can be coarse). */
const SETTLED_MS = 3_000;
const FILE_NAME = 'segments.json';

/**
 * The rows of a segment that state a pin: `"pinned":` appears unescaped in a body only as the
 * message's own field (quotes inside content are escaped), so the bodies need not be parsed.
 */
export function pinRows(db: Database, sessionId: string): SegmentFacts['pins'] {
  return rows(db, `SELECT id, created_at, written_at, instr(body, '"pinned":true') > 0 AS pinned FROM messages WHERE session_id = ? AND instr(body, '"pinned":') > 0`, [sessionId])
    .map((r): [string, number, number, boolean] => [String(r.id), Number(r.created_at), Number(r.written_at), Number(r.pinned) === 1]);
}

/** The lowest and highest request index of a segment's usage rows (-1 for both when it holds none). */
export function requestIndexSpan(db: Database, sessionId: string): { first: number; last: number } {
  const [usage] = rows(db, 'SELECT min(request_index) AS first, max(request_index) AS last FROM turn_usage WHERE session_id = ?', [sessionId]);
  return usage?.last === null || usage?.last === undefined ? { first: -1, last: -1 } : { first: Number(usage.first), last: Number(usage.last) };
}

/** The facts of one segment's rows, read with queries that never parse a message body. */
export function segmentFacts(db: Database, sessionId: string): SegmentFacts {
  const [span] = rows(db, 'SELECT max(created_at) AS last, min(created_at) AS first FROM messages WHERE session_id = ?', [sessionId]);
  const requests = requestIndexSpan(db, sessionId);
  return {
    maxCreatedAt: Number(span?.last ?? 0),
    minCreatedAt: Number(span?.first ?? 0),
    pins: pinRows(db, sessionId),
    maxRequestIndex: requests.last,
    minRequestIndex: requests.first,
  };
}

/**
 * Facts of a session's segment files that no longer change, kept in `sessions/<id>/segments.json`
 * by file name, size and modification time. Resuming reads a snapshot plus what came after it: a
 * segment whose facts say it holds nothing newer is not opened at all. A file changed in any way
 * that moves its size or mtime is read again. Losing this file costs only reads.
 */
export class SegmentSummaries {
  private readonly sessions = new Map<string, Promise<Map<string, Summary>>>();
  private readonly changed = new Set<string>();
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly sessionDir: (sessionId: string) => string, private readonly fs: WriteFs, private readonly writer: string, private readonly writable: boolean) {}

  private load(sessionId: string): Promise<Map<string, Summary>> {
    let loading = this.sessions.get(sessionId);
    if (!loading) {
      loading = fsp.readFile(join(this.sessionDir(sessionId), FILE_NAME), 'utf8')
        .then((text) => new Map(Object.entries(JSON.parse(text) as Record<string, Summary>).filter(([, s]) => isSummary(s))))
        .catch(() => new Map<string, Summary>()); // none yet, or unreadable: segments are opened
      this.sessions.set(sessionId, loading);
    }
    return loading;
  }

  /** The facts of `path` if they were recorded for the file as it is now. */
  async factsOf(sessionId: string, path: string, stat: { size: number; mtimeMs: number }): Promise<SegmentFacts | undefined> {
    const known = (await this.load(sessionId)).get(basename(path));
    return known && known.size === stat.size && known.mtimeMs === stat.mtimeMs ? known : undefined;
  }

  /** The lists of `path` if they were recorded for the file as it is now. */
  async listsOf(sessionId: string, path: string, stat: { size: number; mtimeMs: number }): Promise<SegmentListRows | undefined> {
    const known = (await this.load(sessionId)).get(basename(path));
    return known && known.size === stat.size && known.mtimeMs === stat.mtimeMs ? known.lists : undefined;
  }

  /** Adds `lists` to the facts recorded for `path` as it is now (read by `stat`); false when none are. */
  async addLists(sessionId: string, path: string, stat: { size: number; mtimeMs: number }, lists: SegmentListRows): Promise<boolean> {
    const known = (await this.load(sessionId)).get(basename(path));
    if (!known || known.size !== stat.size || known.mtimeMs !== stat.mtimeMs || known.lists) return false;
    known.lists = lists;
    this.changed.add(sessionId);
    return true;
  }

  /**
   * Records the facts of `path` as it was when `stat` was taken (before its rows were read), with
   * its lists when given (else any lists recorded for the same file as it is are kept). A file
   * another writer may still change is recorded only once settled; `final` is for a file this
   * writer will never write again (a sealed segment, or any segment at close). True if recorded.
   */
  async record(sessionId: string, path: string, facts: SegmentFacts, stat: { size: number; mtimeMs: number } | undefined, final = false, lists?: SegmentListRows): Promise<boolean> {
    const now = stat ?? (await fsp.stat(path).catch(() => undefined));
    if (!now || (!final && Date.now() - now.mtimeMs < SETTLED_MS)) return false;
    const summaries = await this.load(sessionId);
    const known = summaries.get(basename(path));
    const same = known && known.size === now.size && known.mtimeMs === now.mtimeMs;
    summaries.set(basename(path), { ...facts, size: now.size, mtimeMs: now.mtimeMs, lists: lists ?? (same ? known.lists : undefined) });
    this.changed.add(sessionId);
    return true;
  }

  /** Writes the sessions whose facts changed, keeping only files that still exist; one save at a time (they share a temporary file). */
  save(present?: { sessionId: string; names: readonly string[] }): Promise<void> {
    const next = this.saving.then(() => this.saveNow(present));
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async saveNow(present?: { sessionId: string; names: readonly string[] }): Promise<void> {
    if (!this.writable) return;
    for (const sessionId of [...this.changed]) {
      this.changed.delete(sessionId);
      const summaries = await this.load(sessionId);
      if (present?.sessionId === sessionId) for (const name of [...summaries.keys()]) if (!present.names.includes(name)) summaries.delete(name);
      const path = join(this.sessionDir(sessionId), FILE_NAME);
      try {
        // No mkdir: a session folder removed meanwhile (a deleted session) stays removed.
        await writeAtomically(this.fs, path, Buffer.from(JSON.stringify(Object.fromEntries(summaries))), this.writer);
      } catch {
        // Kept in memory; segments are read again by the next window.
      }
    }
  }
}

function isSummary(value: unknown): value is Summary {
  const s = value as Summary;
  if (!(typeof s?.size === 'number' && typeof s.mtimeMs === 'number' && typeof s.maxCreatedAt === 'number' && typeof s.maxRequestIndex === 'number' && Array.isArray(s.pins))) return false;
  if (s.lists !== undefined && !isListRows(s.lists)) delete s.lists; // unreadable lists: the file is opened for them
  return true;
}

function isListRows(lists: unknown): lists is SegmentListRows {
  const l = lists as SegmentListRows;
  const rowList = (r: unknown) => Array.isArray(r) && r.every((row) => typeof row === 'object' && row !== null && typeof (row as { id?: unknown }).id === 'string');
  return typeof l === 'object' && l !== null && rowList(l.usageFigures) && rowList(l.compactions) && rowList(l.blobs);
}
