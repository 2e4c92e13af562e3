import type { Database } from 'sql.js';
import { compareTranscriptOrder, type Message } from '../../../core/model/message';
import { nextTurn } from '../../../core/nextTurn';
import { SEGMENT_FILE, SNAPSHOT_FILE } from '../files/storeLayout';
import { pinRows, type SegmentFacts } from './segmentSummaries';
import { rows, type Row } from '../sql/connection';
import { runPrepared, textBytes } from '../sql/preparedStatements';
import { collectRecords, collectSegmentList, eachSegment, parseNewestReadable } from './segmentReads';
import { eachSessionDb, ownDb, type StoreParts } from '../storeParts';
import type { MessageBodyFiles } from './messageBodyFiles';
import type { SessionSnapshot, ToolCallIndex } from '../../../core/ports/sessionStore';
import type { CompactionEventRecord } from '../../../core/model/records';
import { assembleCompactionRecords, isPiece, ONE_RECORD_SQL, PIECES_SQL, storedHead, writeCompactionRecord, type StoredPiece } from './compactionPieces';
import { compactionHead, type CompactionHead } from '../../../core/model/compactionHead';

/**
 * What a session records besides its row and its usage records: transcript messages and compaction
 * events (in append segments), and its latest snapshot. Every writer's files are merged on read.
 */
export class TranscriptRecords {
  constructor(private readonly parts: StoreParts, private readonly bodies: MessageBodyFiles) {}

  private segment(sessionId: string) {
    return ownDb(this.parts, this.parts.own.segmentPath(sessionId));
  }

  async putMessages(sessionId: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    // Every body first (a long one is written to its own file meanwhile), then the rows without a
    // turn between them: the segment may be sealed and replaced while a file is written.
    const bodies: string[] = [];
    for (const m of messages) bodies.push(await this.bodies.rowBody(m));
    const db = await this.segment(sessionId);
    messages.forEach((m, i) => {
      runPrepared(db, 'INSERT OR REPLACE INTO messages (id, session_id, created_at, written_at, body) VALUES (?, ?, ?, ?, CAST(? AS TEXT))', [m.id, sessionId, m.createdAt, this.parts.stamp(), textBytes(bodies[i])]);
    });
  }

  /**
   * The transcript (after `createdAfter` when given). Each segment gives its rows in one query;
   * the latest copies' bodies are then parsed in slices of about `PARSE_SLICE_CHARS` with a turn
   * for the event loop between them: a never-compacted session of 10,000 messages (2.6 MB) parsed
   * in one go held the extension host for a second and more.
   */
  async loadTranscript(sessionId: string, createdAfter?: number): Promise<Message[]> {
    const bodies = new Map<string, StoredBody>();
    /** Copies replaced by a later one (a message rewritten): read only when the later one does not parse. */
    const older = new Map<string, StoredBody[]>();
    const [sql, params] = createdAfter === undefined
      ? ['SELECT id, written_at, body FROM messages WHERE session_id = ?', [sessionId]]
      : ['SELECT id, written_at, body FROM messages WHERE session_id = ? AND created_at > ?', [sessionId, createdAfter]];
    await eachSegment(this.parts, sessionId, {
      // After a snapshot: the newest segments, which the chat's first page reads next.
      keepOpen: createdAfter !== undefined,
      fromFacts: (facts) => createdAfter !== undefined && facts.maxCreatedAt <= createdAfter, // nothing newer in it
      fromRows: (db) => {
        for (const r of rows(db, sql, params)) {
          const id = String(r.id);
          const written = Number(r.written_at);
          const previous = bodies.get(id);
          const copy = { written, body: String(r.body) };
          if (!previous || previous.written < written) bodies.set(id, copy);
          if (previous) older.set(id, [...(older.get(id) ?? []), previous.written < written ? previous : copy]);
        }
      },
    });
    // The latest copy that parses: a damaged one is skipped, and the rest of the transcript still loads.
    const newestFirst = Array.from(bodies, ([id, latest]) => [latest, ...(older.get(id)?.sort((a, b) => b.written - a.written) ?? [])].map((c) => c.body));
    const messages = await this.bodies.resolve(await parseNewestReadable<Message>(newestFirst, PARSE_SLICE_CHARS));
    return messages.sort(compareTranscriptOrder);
  }

  /** The latest copy of each message in `ids`: every segment is searched by id, and only those rows are parsed. */
  async loadMessages(sessionId: string, ids: readonly string[]): Promise<Message[]> {
    const latest: LatestMessages = new Map();
    if (ids.length === 0) return [];
    const wanted = JSON.stringify(ids);
    await eachSegment(this.parts, sessionId, {
      fromFacts: () => false,
      fromRows: (db) => {
        for (const r of rows(db, 'SELECT id, written_at, body FROM messages WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))', [sessionId, wanted])) keepLatest(latest, r);
      },
    });
    return this.bodies.resolve(inTranscriptOrder(latest));
  }

  /**
   * About the `count` newest messages (created at or before `createdUpTo` when given: the page
   * before one already read), in one pass over the newest segments only: each gives its
   * `count + 1` newest rows, and a segment whose newest message is older than the `count + 1`-th
   * newest found so far, or whose oldest is after `createdUpTo`, is not opened. A message stored
   * in two files (rewritten, or being merged) counts once. `createdAfter`: the time of the newest
   * message left out, when one is. The pass reads ids and times only; the bodies kept are then
   * read and parsed in slices, with a turn for the event loop between them (a few hundred long
   * tool outputs are megabytes).
   */
  async loadRecent(sessionId: string, count: number, createdUpTo?: number): Promise<{ messages: Message[]; createdAfter?: number }> {
    for (let attempt = 0; ; attempt++) {
      const { copies, threshold } = await this.newestCopies(sessionId, count, createdUpTo);
      const latest: LatestMessages = new Map();
      const complete = await this.readBodies(latestWritten(copies.filter((c) => threshold === undefined || c.createdAt > threshold)), latest);
      // A file listed in the first pass went away (merged by another window) or could not be read
      // before its bodies were: read again over the files there now, rather than show a page with a gap.
      if (complete || attempt === MAX_REREADS) return { messages: await this.bodies.resolve(inTranscriptOrder(latest)), createdAfter: threshold };
    }
  }

  /** The first pass of `loadRecent`: where the copies of about the `count` newest messages are, without their bodies. */
  private async newestCopies(sessionId: string, count: number, createdUpTo?: number): Promise<{ copies: StoredCopy[]; threshold?: number }> {
    const copies: StoredCopy[] = [];
    let newest = new Map<string, number>();
    let threshold: number | undefined;
    const upTo = createdUpTo === undefined ? '' : ' AND created_at <= ?';
    const upToParams = createdUpTo === undefined ? [] : [createdUpTo];
    await eachSegment(this.parts, sessionId, {
      newestFirst: true,
      keepOpen: true, // the bodies are read from the same files next
      fromFacts: (facts) => (threshold !== undefined && facts.maxCreatedAt < threshold) || (createdUpTo !== undefined && facts.minCreatedAt !== undefined && facts.minCreatedAt > createdUpTo),
      fromRows: (db, path) => {
        // A segment's rows newer than the final threshold are all among its count + 1 newest (its
        // ids are distinct), and none is older than the threshold so far.
        const [sql, params] = threshold === undefined
          ? [`SELECT id, created_at, written_at, length(body) AS size FROM messages WHERE session_id = ?${upTo} ORDER BY created_at DESC LIMIT ?`, [sessionId, ...upToParams, count + 1]]
          : [`SELECT id, created_at, written_at, length(body) AS size FROM messages WHERE session_id = ? AND created_at >= ?${upTo} ORDER BY created_at DESC LIMIT ?`, [sessionId, threshold, ...upToParams, count + 1]];
        for (const r of rows(db, sql, params)) {
          const copy: StoredCopy = { id: String(r.id), createdAt: Number(r.created_at), written: Number(r.written_at), size: Number(r.size), path };
          copies.push(copy);
          newest.set(copy.id, copy.createdAt);
        }
        const kept = [...newest].sort((a, b) => b[1] - a[1]).slice(0, count + 1);
        newest = new Map(kept);
        threshold = kept.length > count ? kept[count][1] : undefined;
      },
    });
    return { copies, threshold };
  }

  /**
   * Reads and parses the bodies of `chosen` into `latest`, from the files that hold them, in slices
   * of about `PARSE_SLICE_CHARS` with a turn for the event loop between them (a few hundred long
   * tool outputs are megabytes). False when a file had gone away meanwhile, or could not be opened.
   */
  private async readBodies(chosen: readonly StoredCopy[], latest: LatestMessages): Promise<boolean> {
    let complete = true;
    for (const [path, inFile] of groupBy(chosen, (c) => c.path)) {
      for (const slice of slicesOf(inFile, (c) => c.size, PARSE_SLICE_CHARS)) {
        const fetch = (db: Database) => rows(db, 'SELECT id, written_at, body FROM messages WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(slice.map((c) => c.id))]);
        const own = this.parts.own.peek(path);
        const found = own ? fetch(own) : await this.parts.reads.read(path, fetch);
        if (!found) complete = false;
        for (const r of found ?? []) keepLatest(latest, r);
        await nextTurn();
      }
    }
    return complete;
  }

  /**
   * The transcript's tool calls and their results' times. Only assistant messages with calls are
   * decoded (they are short); a result gives its time and call id, cut out in SQL. A quote
   * inside a JSON string is escaped, so the key patterns match message fields only.
   */
  async toolCallIndex(sessionId: string): Promise<ToolCallIndex> {
    const index: ToolCallIndex = { calls: new Map(), resultTimes: new Map() };
    const callsSql = `SELECT body FROM messages WHERE session_id = ? AND instr(body, '${CALLS_KEY}') > 0`;
    const resultsSql = `SELECT created_at, substr(body, instr(body, '${CALL_ID_KEY}') + ${CALL_ID_KEY.length}, 200) AS call FROM messages WHERE session_id = ? AND instr(body, '${CALL_ID_KEY}') > 0`;
    await eachSegment(this.parts, sessionId, {
      fromFacts: () => false,
      fromRows: (db) => {
        for (const r of rows(db, callsSql, [sessionId])) {
          try {
            for (const call of (JSON.parse(String(r.body)) as Message).toolCalls ?? []) index.calls.set(call.id, { name: call.name, arguments: call.arguments });
          } catch {
            // an unreadable row: its calls go unnamed
          }
        }
        for (const r of rows(db, resultsSql, [sessionId])) {
          const call = String(r.call);
          index.resultTimes.set(call.slice(0, call.indexOf('"')), Number(r.created_at));
        }
      },
    });
    return index;
  }

  async loadPins(sessionId: string, createdUpTo: number): Promise<Map<string, boolean>> {
    const latest = new Map<string, { written: number; pinned: boolean }>();
    const take = (pins: SegmentFacts['pins']) => {
      for (const [id, createdAt, written, pinned] of pins) {
        if (createdAt > createdUpTo) continue;
        const previous = latest.get(id);
        if (!previous || previous.written < written) latest.set(id, { written, pinned });
      }
    };
    await eachSegment(this.parts, sessionId, {
      fromFacts: (facts) => {
        take(facts.pins);
        return true;
      },
      fromRows: (db) => take(pinRows(db, sessionId)),
    });
    return new Map([...latest].map(([id, v]) => [id, v.pinned]));
  }

  async saveSnapshot(snapshot: SessionSnapshot): Promise<void> {
    const db = await ownDb(this.parts, this.parts.layout.snapshotPath(snapshot.sessionId));
    runPrepared(db, 'INSERT OR REPLACE INTO session_snapshots (session_id, compaction_id, token_count, created_at, written_at, messages) VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT))', [
      snapshot.sessionId, snapshot.compactionId, snapshot.tokenCount, snapshot.createdAt, this.parts.stamp(), textBytes(JSON.stringify(snapshot.messages)),
    ]);
  }

  async loadSnapshot(sessionId: string): Promise<SessionSnapshot | undefined> {
    let best: { written: number; snapshot: SessionSnapshot } | undefined;
    await eachSessionDb(this.parts, sessionId, SNAPSHOT_FILE, (db) => {
      for (const r of rows(db, 'SELECT * FROM session_snapshots WHERE session_id = ?', [sessionId])) {
        const written = Number(r.written_at);
        if (best && best.written >= written) continue;
        try {
          best = { written, snapshot: { sessionId, compactionId: String(r.compaction_id), tokenCount: Number(r.token_count), createdAt: Number(r.created_at), messages: JSON.parse(String(r.messages)) } };
        } catch {
          // An unreadable snapshot is ignored: resume falls back to the transcript.
        }
      }
    });
    return best?.snapshot;
  }

  /** A long record is written in pieces, with turns of the event loop between them (compactionPieces.ts). */
  addCompactionEvent(event: CompactionEventRecord): Promise<void> {
    return writeCompactionRecord(this.parts, event);
  }

  /** Whole records: the heads every open lists, and the pieces of long ones read from their files. */
  async listCompactionEvents(sessionId: string): Promise<CompactionEventRecord[]> {
    return this.wholeRecords(sessionId, await this.storedHeads(sessionId));
  }

  /** The records whose stored heads are `heads`, each long one put back together with its pieces. */
  private async wholeRecords(sessionId: string, heads: readonly CompactionEventRecord[]): Promise<CompactionEventRecord[]> {
    const pieces = heads.some((h) => 'pieces' in h) ? await collectRecords<StoredPiece>(this.parts, sessionId, PIECES_SQL, () => 0) : [];
    // Pieces carry no time of their own: the records are ordered once put back together.
    return assembleCompactionRecords([...heads, ...pieces]).sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Every record's head (its figures and its first removed items), without reading a long record's pieces. */
  async listCompactionHeads(sessionId: string): Promise<CompactionHead[]> {
    const heads: CompactionHead[] = [];
    const older: CompactionEventRecord[] = [];
    for (const row of await this.storedHeads(sessionId)) {
      const head = storedHead(row);
      if (head) heads.push(head);
      else older.push(row);
    }
    // Put together from their pieces, in one pass over the files.
    if (older.length > 0) for (const whole of await this.wholeRecords(sessionId, older)) heads.push(compactionHead(whole));
    return heads.sort((a, b) => a.startedAt - b.startedAt);
  }

  /** One whole record, its pieces read from the files that hold them; undefined when it is not stored (or not whole). */
  async loadCompactionEvent(sessionId: string, id: string): Promise<CompactionEventRecord | undefined> {
    const stored: Array<CompactionEventRecord | StoredPiece> = [];
    await eachSessionDb(this.parts, sessionId, SEGMENT_FILE, (db) => {
      for (const r of rows(db, ONE_RECORD_SQL, [sessionId, id, `${id}#%`])) {
        try {
          stored.push(JSON.parse(String(r.body)) as CompactionEventRecord | StoredPiece);
        } catch {
          // an unreadable piece leaves the record out, as a missing one does
        }
      }
    });
    return assembleCompactionRecords(stored).find((r) => r.id === id);
  }

  /** The rows of the heads' list (facts recorded by older builds hold the pieces too: they are left out). */
  private async storedHeads(sessionId: string): Promise<CompactionEventRecord[]> {
    const stored = await collectSegmentList<CompactionEventRecord | StoredPiece>(this.parts, sessionId, 'compactions', () => 0);
    return stored.filter((row): row is CompactionEventRecord => !isPiece(row));
  }
}

/** About a few milliseconds of decoding and JSON.parse between two turns of the event loop. */
const PARSE_SLICE_CHARS = 512 * 1024;

function groupBy<T>(list: readonly T[], keyOf: (element: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const element of list) {
    const key = keyOf(element);
    const group = groups.get(key);
    if (group) group.push(element);
    else groups.set(key, [element]);
  }
  return groups;
}

/** `list` cut in runs whose sizes add up to about `limit` (at least one element each). */
function slicesOf<T>(list: readonly T[], sizeOf: (element: T) => number, limit: number): T[][] {
  const slices: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const element of list) {
    if (current.length > 0 && size + sizeOf(element) > limit) {
      slices.push(current);
      current = [];
      size = 0;
    }
    current.push(element);
    size += sizeOf(element);
  }
  if (current.length > 0) slices.push(current);
  return slices;
}

/** How often a read starts again when a file it listed went away, or failed to open, before its bodies were read. */
const MAX_REREADS = 3;

/** Where one copy of a message is stored, and its size, without its body. */
interface StoredCopy {
  id: string;
  createdAt: number;
  written: number;
  size: number;
  path: string;
}

/** The latest copy of each message (a message rewritten, or in two files while they are merged, counts once). */
function latestWritten(copies: readonly StoredCopy[]): StoredCopy[] {
  const chosen = new Map<string, StoredCopy>();
  for (const c of copies) {
    const previous = chosen.get(c.id);
    if (!previous || previous.written < c.written) chosen.set(c.id, c);
  }
  return [...chosen.values()];
}

/** A stored copy of a message, its body not parsed yet. */
interface StoredBody {
  written: number;
  body: string;
}

/** Each message id's latest stored copy, by write time. */
type LatestMessages = Map<string, { written: number; message: Message }>;

/** Keeps row `r` when it is the latest copy of its message so far; a row that does not parse is skipped. */
function keepLatest(latest: LatestMessages, r: Row): void {
  const written = Number(r.written_at);
  const previous = latest.get(String(r.id));
  if (previous && previous.written >= written) return;
  try {
    latest.set(String(r.id), { written, message: JSON.parse(String(r.body)) as Message });
  } catch {
    // The rest of the transcript still loads.
  }
}

function inTranscriptOrder(latest: LatestMessages): Message[] {
  return [...latest.values()].map((v) => v.message).sort(compareTranscriptOrder);
}

/** A message's own tool calls, and a result's call id (keys of a message body). */
const CALLS_KEY = '"toolCalls":[{';
const CALL_ID_KEY = '"toolCallId":"';
