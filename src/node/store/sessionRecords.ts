import type { Message } from '../../core/model/message';
import { nextTurn } from '../../core/nextTurn';
import type { RequestItem } from '../../core/model/records';
import { applyItemsDelta, encodeRequestItems, type StoredRequestItems } from '../../core/model/requestItemsDelta';
import { SEGMENT_FILE, SNAPSHOT_FILE } from './layout';
import { highestRequestIndex, pinRows, type SegmentFacts } from './segmentSummaries';
import { rows, type Row } from './sqlRows';
import { runPrepared, textBytes } from './statements';
import { eachSegment } from './segmentReads';
import { eachSessionDb, ownDb, type StoreParts } from './storeParts';
import type { CompactionEventRecord, SessionSnapshot, ToolCallIndex, TurnUsageRecord } from '../../core/ports/sessionStore';

/**
 * What a session records besides its row: transcript messages, compaction events and turn usage
 * (in append segments), and its latest snapshot. Every writer's files are merged on read.
 */
export class SessionRecords {
  /** The last item list written per session: the next usage record is stored as a change of it. */
  private readonly lastItems = new Map<string, { id: string; items: readonly RequestItem[]; changedSinceFull: number }>();

  constructor(private readonly parts: StoreParts) {}

  private segment(sessionId: string) {
    return ownDb(this.parts, this.parts.own.segmentPath(sessionId));
  }

  async putMessages(sessionId: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    const db = await this.segment(sessionId);
    for (const m of messages) {
      runPrepared(db, 'INSERT OR REPLACE INTO messages (id, session_id, created_at, written_at, body) VALUES (?, ?, ?, ?, CAST(? AS TEXT))', [m.id, sessionId, m.createdAt, this.parts.stamp(), textBytes(JSON.stringify(m))]);
    }
  }

  async loadTranscript(sessionId: string, createdAfter?: number): Promise<Message[]> {
    const latest: LatestMessages = new Map();
    const [sql, params] = createdAfter === undefined
      ? ['SELECT id, written_at, body FROM messages WHERE session_id = ?', [sessionId]]
      : ['SELECT id, written_at, body FROM messages WHERE session_id = ? AND created_at > ?', [sessionId, createdAfter]];
    await eachSegment(this.parts, sessionId, {
      fromFacts: (facts) => createdAfter !== undefined && facts.maxCreatedAt <= createdAfter, // nothing newer in it
      fromRows: (db) => {
        for (const r of rows(db, sql, params)) keepLatest(latest, r);
      },
    });
    return inTranscriptOrder(latest);
  }

  /**
   * About the `count` newest messages (created at or before `createdUpTo` when given: the page
   * before one already read), in one pass over the newest segments only: each gives its
   * `count + 1` newest rows, and a segment whose newest message is older than the `count + 1`-th
   * newest found so far, or whose oldest is after `createdUpTo`, is not opened. A message stored
   * in two files (rewritten, or being merged) counts once. `createdAfter`: the time of the newest
   * message left out, when one is.
   */
  async loadRecent(sessionId: string, count: number, createdUpTo?: number): Promise<{ messages: Message[]; createdAfter?: number }> {
    const candidates: Row[] = [];
    let newest = new Map<string, number>();
    let threshold: number | undefined;
    const upTo = createdUpTo === undefined ? '' : ' AND created_at <= ?';
    const upToParams = createdUpTo === undefined ? [] : [createdUpTo];
    await eachSegment(this.parts, sessionId, {
      newestFirst: true,
      fromFacts: (facts) => (threshold !== undefined && facts.maxCreatedAt < threshold) || (createdUpTo !== undefined && facts.minCreatedAt !== undefined && facts.minCreatedAt > createdUpTo),
      fromRows: (db) => {
        // A segment's rows newer than the final threshold are all among its count + 1 newest (its
        // ids are distinct), and none is older than the threshold so far: only those are decoded.
        const [sql, params] = threshold === undefined
          ? [`SELECT id, created_at, written_at, body FROM messages WHERE session_id = ?${upTo} ORDER BY created_at DESC LIMIT ?`, [sessionId, ...upToParams, count + 1]]
          : [`SELECT id, created_at, written_at, body FROM messages WHERE session_id = ? AND created_at >= ?${upTo} ORDER BY created_at DESC LIMIT ?`, [sessionId, threshold, ...upToParams, count + 1]];
        for (const r of rows(db, sql, params)) {
          candidates.push(r);
          newest.set(String(r.id), Number(r.created_at));
        }
        const kept = [...newest].sort((a, b) => b[1] - a[1]).slice(0, count + 1);
        newest = new Map(kept);
        threshold = kept.length > count ? kept[count][1] : undefined;
      },
    });
    // The rows kept are parsed in slices, with a turn for the event loop between them: a few
    // hundred long tool outputs are megabytes of JSON.
    const latest: LatestMessages = new Map();
    let parsed = 0;
    for (const r of candidates) {
      if (threshold !== undefined && Number(r.created_at) <= threshold) continue;
      keepLatest(latest, r);
      parsed += String(r.body).length;
      if (parsed >= PARSE_SLICE_CHARS) {
        parsed = 0;
        await nextTurn();
      }
    }
    return { messages: inTranscriptOrder(latest), createdAfter: threshold };
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

  /** One past the highest request index recorded (0 when none), without reading the usage rows. */
  async nextRequestIndex(sessionId: string): Promise<number> {
    let highest = -1;
    await eachSegment(this.parts, sessionId, {
      fromFacts: (facts) => {
        highest = Math.max(highest, facts.maxRequestIndex);
        return true;
      },
      fromRows: (db) => {
        highest = Math.max(highest, highestRequestIndex(db, sessionId));
      },
    });
    return highest + 1;
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

  async addCompactionEvent(event: CompactionEventRecord): Promise<void> {
    const db = await this.segment(event.sessionId);
    runPrepared(db, 'INSERT OR REPLACE INTO compaction_events (id, session_id, started_at, body) VALUES (?, ?, ?, CAST(? AS TEXT))', [event.id, event.sessionId, event.startedAt, textBytes(JSON.stringify(event))]);
  }

  listCompactionEvents(sessionId: string): Promise<CompactionEventRecord[]> {
    return this.collect<CompactionEventRecord>(sessionId, 'SELECT id, body FROM compaction_events WHERE session_id = ?', (a, b) => a.startedAt - b.startedAt);
  }

  async addTurnUsage(record: TurnUsageRecord): Promise<void> {
    const db = await this.segment(record.sessionId);
    const last = this.lastItems.get(record.sessionId);
    // A full list is written once the changes since the last one add up to a list's size, so full
    // lists cost no more than the changes do and a list never rests on a long chain of changes.
    const stored = encodeRequestItems(record.items, last && last.changedSinceFull < record.items.length ? last : undefined);
    const { items: _items, ...rest } = record;
    runPrepared(db, 'INSERT OR REPLACE INTO turn_usage (id, session_id, request_index, created_at, body) VALUES (?, ?, ?, ?, CAST(? AS TEXT))', [record.id, record.sessionId, record.requestIndex, record.createdAt, textBytes(JSON.stringify({ ...rest, storedItems: stored }))]);
    this.lastItems.delete(record.sessionId);
    if (this.lastItems.size >= REMEMBERED_SESSIONS) this.lastItems.delete(this.lastItems.keys().next().value!);
    const changed = 'full' in stored ? 0 : (last?.changedSinceFull ?? 0) + stored.added.length + stored.removed.length;
    this.lastItems.set(record.sessionId, { id: record.id, items: record.items, changedSinceFull: changed });
  }

  async listTurnUsage(sessionId: string, options: { items?: boolean } = {}): Promise<TurnUsageRecord[]> {
    const order = (a: StoredTurnUsage, b: StoredTurnUsage) => a.requestIndex - b.requestIndex || a.createdAt - b.createdAt;
    if (options.items === false) {
      // A row's item list is written last in its body (`,"storedItems":…}`) and is most of it: the
      // figures alone are cut out in SQL, so the list is neither decoded nor parsed.
      const figures = await this.collect<StoredTurnUsage>(sessionId, `SELECT id, CASE WHEN instr(body, '${ITEMS_KEY}') > 0 THEN substr(body, 1, instr(body, '${ITEMS_KEY}') - 1) || '}' ELSE body END AS body FROM turn_usage WHERE session_id = ?`, order);
      return figures.map(({ storedItems: _stored, items: _items, ...rest }) => ({ ...rest, items: [] }));
    }
    const stored = await this.collect<StoredTurnUsage>(sessionId, 'SELECT id, body FROM turn_usage WHERE session_id = ?', order);
    return rebuildItemLists(stored);
  }

  /**
   * One request's usage record with its item list, reading only the rows that list is built from:
   * the segments are visited newest first, each gives its rows up to the request (the base of each
   * cut out in SQL), and the visit stops once the chain from the request back to a full list is
   * complete. Only that chain's bodies are parsed. Undefined when no such request is stored.
   */
  async turnUsageAt(sessionId: string, requestIndex: number): Promise<TurnUsageRecord | undefined> {
    const found = new Map<string, { index: number; createdAt: number; base?: string; body: string }>();
    const linkSql = `SELECT id, request_index, created_at, body, CASE WHEN instr(body, '${BASE_KEY}') > 0 THEN substr(body, instr(body, '${BASE_KEY}') + ${BASE_KEY.length}, 80) END AS base FROM turn_usage WHERE session_id = ? AND request_index <= ?`;
    // The same record a list in request order finds first: the earliest of its index.
    const target = () => {
      let first: string | undefined;
      for (const [id, row] of found) if (row.index === requestIndex && (first === undefined || row.createdAt < found.get(first)!.createdAt)) first = id;
      return first;
    };
    const chainOf = (from: string | undefined) => {
      const chain = new Set<string>();
      for (let at = from; at !== undefined && !chain.has(at) && found.has(at); at = found.get(at)!.base) chain.add(at);
      return chain;
    };
    let complete = false;
    await eachSegment(this.parts, sessionId, {
      newestFirst: true,
      newestBy: (facts) => facts.maxRequestIndex,
      done: () => complete,
      fromFacts: (facts) => facts.maxRequestIndex < 0 || (facts.minRequestIndex !== undefined && facts.minRequestIndex > requestIndex),
      fromRows: (db) => {
        for (const r of rows(db, linkSql, [sessionId, requestIndex])) {
          const base = r.base === null ? undefined : String(r.base);
          found.set(String(r.id), { index: Number(r.request_index), createdAt: Number(r.created_at), base: base?.slice(0, base.indexOf('"')), body: String(r.body) });
        }
        const chain = [...chainOf(target())];
        complete = chain.length > 0 && found.get(chain[chain.length - 1])!.base === undefined;
      },
    });
    const first = target();
    if (first === undefined) return undefined;
    const stored: StoredTurnUsage[] = [];
    for (const id of chainOf(first)) {
      try {
        stored.push(JSON.parse(found.get(id)!.body) as StoredTurnUsage);
      } catch {
        // an unreadable row: the list that rests on it cannot be rebuilt
      }
    }
    return rebuildItemLists(stored.reverse()).find((record) => record.id === first);
  }

  private async collect<T>(sessionId: string, sql: string, order: (a: T, b: T) => number): Promise<T[]> {
    const byId = new Map<string, T>();
    await eachSessionDb(this.parts, sessionId, SEGMENT_FILE, (db) => {
      for (const r of rows(db, sql, [sessionId])) {
        try {
          byId.set(String(r.id), JSON.parse(String(r.body)) as T);
        } catch {
          // skip an unreadable row
        }
      }
    });
    return [...byId.values()].sort(order);
  }
}

/** About a few milliseconds of JSON.parse between two turns of the event loop. */
const PARSE_SLICE_CHARS = 512 * 1024;

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
  return [...latest.values()].map((v) => v.message).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A usage row as stored: its item list in full or as a change (older rows carry `items`). */
type StoredTurnUsage = Omit<TurnUsageRecord, 'items'> & { items?: RequestItem[]; storedItems?: StoredRequestItems };

const REMEMBERED_SESSIONS = 16;
/** Where a usage body's item list begins: its last key (an unescaped quote occurs only around keys and string values). */
const ITEMS_KEY = ',"storedItems":';
/** A message's own tool calls, and a result's call id (keys of a message body). */
const CALLS_KEY = '"toolCalls":[{';
const CALL_ID_KEY = '"toolCallId":"';
/** Where a usage body's item list stored as a change names its base record. */
const BASE_KEY = `${ITEMS_KEY}{"base":"`;

/** Turns stored rows back into records with their whole item lists. A row whose base is lost gets an empty list. */
export function rebuildItemLists(stored: readonly StoredTurnUsage[]): TurnUsageRecord[] {
  const byId = new Map(stored.map((row) => [row.id, row]));
  const rebuilt = new Map<string, RequestItem[]>();
  const unrecoverable = new Set<string>();
  const itemsOf = (row: StoredTurnUsage): RequestItem[] => {
    // Walk back to the nearest row whose list is known, then forward again (no recursion: chains can be long).
    const chain: StoredTurnUsage[] = [];
    let at: StoredTurnUsage | undefined = row;
    let items: RequestItem[] = [];
    let lost = false;
    while (at) {
      const known = rebuilt.get(at.id);
      if (known) {
        items = known;
        lost = unrecoverable.has(at.id);
        break;
      }
      const ownList = at.items ?? (at.storedItems && 'full' in at.storedItems ? at.storedItems.full : undefined);
      if (ownList) {
        items = ownList;
        rebuilt.set(at.id, items);
        break;
      }
      chain.push(at);
      const baseId: string | undefined = at.storedItems && !('full' in at.storedItems) ? at.storedItems.base : undefined;
      at = baseId !== undefined && chain.length <= stored.length ? byId.get(baseId) : undefined;
      lost = !at; // the base is gone (a damaged file set aside): these lists cannot be rebuilt
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const change = chain[i].storedItems;
      if (!lost && change && !('full' in change)) items = applyItemsDelta(items, change.removed, change.added);
      rebuilt.set(chain[i].id, lost ? [] : items);
      if (lost) unrecoverable.add(chain[i].id);
    }
    return lost ? [] : items;
  };
  return stored.map((row) => {
    const { storedItems: _stored, items: _items, ...rest } = row;
    return { ...rest, items: itemsOf(row) };
  });
}
