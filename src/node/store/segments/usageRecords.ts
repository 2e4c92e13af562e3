import type { RequestItem } from '../../../core/model/records';
import { encodeRequestItems, type StoredRequestItems, applyItemsDelta, ReplayedItemList } from '../../../core/model/requestItemsDelta';
import type { RequestUsageRecord } from '../../../core/model/records';
import { requestIndexSpan } from './segmentSummaries';
import { collectRecords, collectSegmentList, eachSegment } from './segmentReads';
import { FIGURES_BODY, ITEMS_KEY } from './sealedLists';
import { rows } from '../sql/connection';
import { runPrepared, textBytes } from '../sql/preparedStatements';
import { ownDb, type StoreParts } from '../storeParts';

/**
 * A session's usage records, one per request: its figures, and its item list stored as the change
 * from the previous request's list (a full list now and then). Every writer's files are merged on
 * read; a single request's list is read without the others.
 */
export class UsageRecords {
  /** The last item list written per session: the next usage record is stored as a change of it. */
  private readonly lastItems = new Map<string, ItemsBase>();
  /** The latest list read per session (requestUsageAt): what a window's first record rests on. */
  private readonly rebuilt = new Map<string, ItemsBase & { requestIndex: number }>();

  constructor(private readonly parts: StoreParts) {}

  async addRequestUsage(record: RequestUsageRecord): Promise<void> {
    // A window's first record of a session is a change of the last one stored (by any window), not a full list.
    const last = this.lastItems.get(record.sessionId) ?? (await this.storedBase(record.sessionId, record.requestIndex));
    const db = await ownDb(this.parts, this.parts.own.segmentPath(record.sessionId));
    // A full list is written once the changes since the last one add up to a list's size, so full
    // lists cost no more than the changes do and a list never rests on a long chain of changes.
    const stored = encodeRequestItems(record.items, last && last.changedSinceFull < record.items.length ? last : undefined);
    const { items: _items, ...rest } = record;
    runPrepared(db, 'INSERT OR REPLACE INTO turn_usage (id, session_id, request_index, created_at, body) VALUES (?, ?, ?, ?, CAST(? AS TEXT))', [record.id, record.sessionId, record.requestIndex, record.createdAt, textBytes(JSON.stringify({ ...rest, storedItems: stored }))]);
    const changed = 'full' in stored ? 0 : (last?.changedSinceFull ?? 0) + stored.added.length + stored.removed.length;
    this.remember(this.lastItems, record.sessionId, { id: record.id, items: record.items, changedSinceFull: changed });
    this.rebuilt.delete(record.sessionId);
  }

  /** Keeps `value` for `sessionId` among the most recently used sessions'. */
  private remember<T>(map: Map<string, T>, sessionId: string, value: T): void {
    map.delete(sessionId);
    if (map.size >= REMEMBERED_SESSIONS) map.delete(map.keys().next().value!);
    map.set(sessionId, value);
  }

  async listRequestUsage(sessionId: string, options: { items?: boolean } = {}): Promise<RequestUsageRecord[]> {
    const order = (a: StoredRequestUsage, b: StoredRequestUsage) => a.requestIndex - b.requestIndex || a.createdAt - b.createdAt;
    if (options.items === false) {
      // A row's item list is written last in its body (`,"storedItems":…}`) and is most of it: the
      // figures alone are cut out in SQL, so the list is neither decoded nor parsed.
      // The records just parsed are the ones returned (no second copy of 9,000 records to collect):
      // older rows' own lists are emptied in place.
      const figures = await collectSegmentList<StoredRequestUsage>(this.parts, sessionId, 'usageFigures', order);
      for (const record of figures) {
        if (record.storedItems !== undefined) delete record.storedItems;
        record.items = [];
      }
      return figures as RequestUsageRecord[];
    }
    const stored = await collectRecords<StoredRequestUsage>(this.parts, sessionId, 'SELECT id, body FROM turn_usage WHERE session_id = ?', order);
    return rebuildItemLists(stored);
  }

  /**
   * One request's usage record with its item list, reading only the rows that list is built from:
   * the segments are visited newest first, each gives its rows up to the request (the base of each
   * cut out in SQL), and the visit stops once the chain from the request back to a full list is
   * complete. Only that chain's bodies are parsed. Undefined when no such request is stored.
   */
  async requestUsageAt(sessionId: string, requestIndex: number): Promise<RequestUsageRecord | undefined> {
    const chain = await this.storedChainAt(sessionId, requestIndex);
    const record = chain && lastOfChain(chain);
    if (chain && record) this.remember(this.rebuilt, sessionId, { requestIndex, id: record.id, items: [...record.items], changedSinceFull: changesSinceFull(chain) });
    return record;
  }

  /**
   * The item list the session's records left off with before `requestIndex` (the latest stored
   * record's), what the next record is stored as a change of, and the changes since its full list.
   */
  private async storedBase(sessionId: string, requestIndex: number): Promise<ItemsBase | undefined> {
    const latest = Math.min((await this.nextRequestIndex(sessionId)) - 1, requestIndex - 1);
    // Opening the session read the latest request's list (the chat's and the inspector's figures):
    // this window's first record rests on it without replaying its chain again.
    const read = this.rebuilt.get(sessionId);
    if (read && read.requestIndex === latest) return read;
    const chain = latest < 0 ? undefined : await this.storedChainAt(sessionId, latest);
    const record = chain && lastOfChain(chain);
    if (!chain || !record) return undefined;
    return { id: record.id, items: record.items, changedSinceFull: changesSinceFull(chain) };
  }

  /** The stored rows of request `requestIndex`'s record and the records its list rests on, oldest first; the record last. */
  private async storedChainAt(sessionId: string, requestIndex: number): Promise<StoredRequestUsage[] | undefined> {
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
    const stored: StoredRequestUsage[] = [];
    for (const id of chainOf(first)) {
      try {
        stored.push(JSON.parse(found.get(id)!.body) as StoredRequestUsage);
      } catch {
        // an unreadable row: the list that rests on it cannot be rebuilt
      }
    }
    return stored[0]?.id === first ? stored.reverse() : undefined;
  }

  /**
   * One request's figures without its item list (left empty): only the segments whose request
   * indexes span it are opened, and no list is read. The first stored, if two share the index.
   */
  async figuresAt(sessionId: string, requestIndex: number): Promise<RequestUsageRecord | undefined> {
    let first: StoredRequestUsage | undefined;
    await eachSegment(this.parts, sessionId, {
      keepOpen: true, // the newest segments: the chat reads them next
      fromFacts: (facts) => facts.maxRequestIndex < requestIndex || (facts.minRequestIndex !== undefined && facts.minRequestIndex > requestIndex),
      fromRows: (db) => {
        for (const r of rows(db, `SELECT ${FIGURES_BODY} AS body FROM turn_usage WHERE session_id = ? AND request_index = ?`, [sessionId, requestIndex])) {
          try {
            const found = JSON.parse(String(r.body)) as StoredRequestUsage;
            if (!first || found.createdAt < first.createdAt) first = found;
          } catch {
            // an unreadable row
          }
        }
      },
    });
    if (!first) return undefined;
    const { storedItems: _stored, items: _items, ...rest } = first;
    return { ...rest, items: [] };
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
        highest = Math.max(highest, requestIndexSpan(db, sessionId).last);
      },
    });
    return highest + 1;
  }
}

/** A usage row as stored: its item list in full or as a change (older rows carry `items`). */
type StoredRequestUsage = Omit<RequestUsageRecord, 'items'> & { items?: RequestItem[]; storedItems?: StoredRequestItems };

/** A record's item list that the next record can be stored as a change of, with the changes since its chain's full list. */
interface ItemsBase {
  id: string;
  items: readonly RequestItem[];
  changedSinceFull: number;
}

/** The items added and removed by the changes of a chain since its full list. */
function changesSinceFull(chain: readonly StoredRequestUsage[]): number {
  return chain.reduce((n, row) => (row.storedItems && 'base' in row.storedItems ? n + row.storedItems.added.length + row.storedItems.removed.length : 0), 0);
}

const REMEMBERED_SESSIONS = 16;
/** Where a usage body's item list stored as a change names its base record. */
const BASE_KEY = `${ITEMS_KEY}{"base":"`;

/**
 * The last record of a chain of rows (oldest first: a full list, then changes each resting on the row
 * before it) with its item list: the changes replayed on one list, not a list per row. An empty list
 * when the chain does not start from a full list or a row's base is missing (a damaged file set aside).
 */
export function lastOfChain(chain: readonly StoredRequestUsage[]): RequestUsageRecord | undefined {
  const last = chain[chain.length - 1];
  if (!last) return undefined;
  const { storedItems: _stored, items: _items, ...rest } = last;
  const first = chain[0];
  const full = first.items ?? (first.storedItems && 'full' in first.storedItems ? first.storedItems.full : undefined);
  if (!full) return { ...rest, items: [] };
  const list = new ReplayedItemList(full);
  for (let i = 1; i < chain.length; i++) {
    const change = chain[i].storedItems;
    if (!change || 'full' in change || change.base !== chain[i - 1].id) return { ...rest, items: [] };
    list.apply(change.removed, change.added);
  }
  return { ...rest, items: list.items };
}

/** Turns stored rows back into records with their whole item lists. A row whose base is lost gets an empty list. */
export function rebuildItemLists(stored: readonly StoredRequestUsage[]): RequestUsageRecord[] {
  const byId = new Map(stored.map((row) => [row.id, row]));
  const rebuilt = new Map<string, RequestItem[]>();
  const unrecoverable = new Set<string>();
  const itemsOf = (row: StoredRequestUsage): RequestItem[] => {
    // Walk back to the nearest row whose list is known, then forward again (no recursion: chains can be long).
    const chain: StoredRequestUsage[] = [];
    let at: StoredRequestUsage | undefined = row;
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
