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

/** What a session's facts files hold: the whole map (segments.json) and the entries appended since (segments.log). */
interface SessionFacts {
  summaries: Map<string, Summary>;
  /** Names recorded since the last write of either file. */
  changed: Set<string>;
  /** Bytes in segments.json, and in segments.log (what a whole rewrite would fold in). */
  baseBytes: number;
  logBytes: number;
  /** A name was dropped (its file is gone): only a whole rewrite says so. */
  dropped: boolean;
}

const LOG_NAME = 'segments.log';
/** The log is folded into segments.json once it holds more than this, or more than segments.json itself. */
const LOG_FOLD_MIN_BYTES = 256 * 1024;

/**
 * Facts of a session's segment files that no longer change, kept in `sessions/<id>/segments.json`
 * by file name, size and modification time. Resuming reads a snapshot plus what came after it: a
 * segment whose facts say it holds nothing newer is not opened at all. A file changed in any way
 * that moves its size or mtime is read again. Losing these files costs only reads.
 *
 * A session gathers a segment every 2 MiB, each with facts of about 150 KB (its lists), so
 * facts recorded since segments.json was written (a segment sealed, a file read for the first
 * time) are appended to `segments.log`, one line an entry, each line starting on a line of its
 * own; reads apply the log's lines over segments.json, and a line cut short by a crash is skipped.
 * The log is folded into a rewritten segments.json (atomically) once it outgrows it, when a
 * segment is gone, and when the window closes: a window writes what changed, not every
 * segment's facts again at each seal.
 */
export class SegmentSummaries {
  private readonly sessions = new Map<string, Promise<SessionFacts>>();
  private readonly changed = new Set<string>();
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly sessionDir: (sessionId: string) => string, private readonly fs: WriteFs, private readonly writer: string, private readonly writable: boolean) {}

  /** The facts read so far, by session: what a synchronous question can be answered from. */
  private readonly loaded = new Map<string, SessionFacts>();

  private load(sessionId: string): Promise<SessionFacts> {
    let loading = this.sessions.get(sessionId);
    if (!loading) {
      loading = readFacts(this.sessionDir(sessionId)).then((facts) => {
        this.loaded.set(sessionId, facts);
        return facts;
      });
      this.sessions.set(sessionId, loading);
    }
    return loading;
  }

  /**
   * Whether the facts already read record the lists of the segment at `path` (as it was when
   * recorded): a read that opens it for other rows needs not take its lists from it again.
   */
  holdsLists(sessionId: string, path: string): boolean {
    return this.loaded.get(sessionId)?.summaries.get(basename(path))?.lists !== undefined;
  }

  private async summaries(sessionId: string): Promise<Map<string, Summary>> {
    return (await this.load(sessionId)).summaries;
  }

  /** The facts of `path` if they were recorded for the file as it is now. */
  async factsOf(sessionId: string, path: string, stat: { size: number; mtimeMs: number }): Promise<SegmentFacts | undefined> {
    const known = (await this.summaries(sessionId)).get(basename(path));
    return known && known.size === stat.size && known.mtimeMs === stat.mtimeMs ? known : undefined;
  }

  /** The lists of `path` if they were recorded for the file as it is now. */
  async listsOf(sessionId: string, path: string, stat: { size: number; mtimeMs: number }): Promise<SegmentListRows | undefined> {
    const known = (await this.summaries(sessionId)).get(basename(path));
    return known && known.size === stat.size && known.mtimeMs === stat.mtimeMs ? known.lists : undefined;
  }

  /** Adds `lists` to the facts recorded for `path` as it is now (read by `stat`); false when none are. */
  async addLists(sessionId: string, path: string, stat: { size: number; mtimeMs: number }, lists: SegmentListRows): Promise<boolean> {
    const facts = await this.load(sessionId);
    const known = facts.summaries.get(basename(path));
    if (!known || known.size !== stat.size || known.mtimeMs !== stat.mtimeMs || known.lists) return false;
    known.lists = lists;
    facts.changed.add(basename(path));
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
    const session = await this.load(sessionId);
    const name = basename(path);
    const known = session.summaries.get(name);
    const same = known && known.size === now.size && known.mtimeMs === now.mtimeMs;
    session.summaries.set(name, { ...facts, size: now.size, mtimeMs: now.mtimeMs, lists: lists ?? (same ? known.lists : undefined) });
    session.changed.add(name);
    this.changed.add(sessionId);
    return true;
  }

  /**
   * Writes the facts that changed, keeping only files that still exist; one save at a time (they
   * share a temporary file). `whole`: every session's log is folded into its segments.json (at close).
   */
  save(present?: { sessionId: string; names: readonly string[] }, whole = false): Promise<void> {
    const next = this.saving.then(() => this.saveNow(present, whole));
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async saveNow(present: { sessionId: string; names: readonly string[] } | undefined, whole: boolean): Promise<void> {
    if (!this.writable) return;
    const sessions = whole ? [...this.sessions.keys()] : [...this.changed];
    for (const sessionId of sessions) {
      this.changed.delete(sessionId);
      const facts = await this.load(sessionId);
      if (present?.sessionId === sessionId) {
        for (const name of [...facts.summaries.keys()]) {
          if (present.names.includes(name)) continue;
          facts.summaries.delete(name);
          facts.dropped = true;
        }
      }
      const dir = this.sessionDir(sessionId);
      try {
        // No mkdir: a session folder removed meanwhile (a deleted session) stays removed.
        const lines = [...facts.changed].flatMap((name) => {
          const summary = facts.summaries.get(name);
          return summary ? [`\n${JSON.stringify({ name, summary })}\n`] : [];
        });
        const logBytes = facts.logBytes + lines.reduce((n, line) => n + line.length, 0);
        facts.changed.clear();
        if (facts.dropped || (whole && (facts.logBytes > 0 || lines.length > 0)) || logBytes > Math.max(facts.baseBytes, LOG_FOLD_MIN_BYTES)) {
          const base = Buffer.from(JSON.stringify(Object.fromEntries(facts.summaries)));
          await writeAtomically(this.fs, join(dir, FILE_NAME), base, this.writer);
          await fsp.rm(join(dir, LOG_NAME), { force: true });
          Object.assign(facts, { baseBytes: base.length, logBytes: 0, dropped: false });
        } else if (lines.length) {
          await this.fs.writeFile(join(dir, LOG_NAME), Buffer.from(lines.join('')), true);
          facts.logBytes = logBytes;
        }
      } catch {
        // Kept in memory; segments are read again by the next window.
      }
    }
  }
}

/** A session's facts: segments.json, then each whole line of segments.log over it; an unreadable part is skipped. */
async function readFacts(dir: string): Promise<SessionFacts> {
  const facts: SessionFacts = { summaries: new Map(), changed: new Set(), baseBytes: 0, logBytes: 0, dropped: false };
  const [base, log] = await Promise.all([fsp.readFile(join(dir, FILE_NAME), 'utf8').catch(() => undefined), fsp.readFile(join(dir, LOG_NAME), 'utf8').catch(() => undefined)]);
  if (base !== undefined) {
    facts.baseBytes = base.length;
    try {
      for (const [name, summary] of Object.entries(JSON.parse(base) as Record<string, Summary>)) if (isSummary(summary)) facts.summaries.set(name, summary);
    } catch {
      // unreadable: its segments are opened
    }
  }
  if (log !== undefined) {
    facts.logBytes = log.length;
    for (const line of log.split('\n')) {
      if (!line) continue;
      try {
        const entry = JSON.parse(line) as { name?: unknown; summary?: unknown };
        if (typeof entry.name === 'string' && isSummary(entry.summary)) facts.summaries.set(entry.name, entry.summary);
      } catch {
        // a line cut short by a crash, or garbled: that segment is opened
      }
    }
  }
  return facts;
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
