import type { RequestItem } from '../../../core/model/records';
import { encodeRequestItemsInSlices, applyItemsDelta } from '../../../core/model/requestItemsDelta';
import { nextTurn } from '../../../core/nextTurn';
import { changesSinceFull, lastOfChain, readUsageChain, type StoredRequestUsage } from './usageChain';
import type { RequestUsageRecord } from '../../../core/model/records';
import { requestIndexSpan } from './segmentSummaries';
import { collectRecords, collectSegmentList, eachSegment } from './segmentReads';
import { FIGURES_BODY } from './sealedLists';
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
    // Reading and replaying the stored list was a slice of its own; comparing the new list with it is the next.
    if (!this.lastItems.has(record.sessionId)) await nextTurn();
    // A full list is written once the changes since the last one add up to a list's size, so full
    // lists cost no more than the changes do and a list never rests on a long chain of changes.
    const stored = await encodeRequestItemsInSlices(record.items, last && last.changedSinceFull < record.items.length ? last : undefined, nextTurn);
    const db = await ownDb(this.parts, this.parts.own.segmentPath(record.sessionId));
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
   * pages of request indexes newest first, each giving its rows (the base of each
   * cut out in SQL), and the visit stops once the chain from the request back to a full list is
   * complete. Only that chain's bodies are parsed. Undefined when no such request is stored.
   */
  async requestUsageAt(sessionId: string, requestIndex: number): Promise<RequestUsageRecord | undefined> {
    const chain = await readUsageChain(this.parts, sessionId, requestIndex);
    const record = chain && (await lastOfChain(chain));
    if (!chain || !record) return record;
    // The list replayed is kept (its id counts known); the caller gets a copy of its own.
    this.remember(this.rebuilt, sessionId, { requestIndex, id: record.id, items: record.items, changedSinceFull: changesSinceFull(chain) });
    return { ...record, items: [...record.items] };
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
    const chain = latest < 0 ? undefined : await readUsageChain(this.parts, sessionId, latest);
    const record = chain && (await lastOfChain(chain));
    if (!chain || !record) return undefined;
    return { id: record.id, items: record.items, changedSinceFull: changesSinceFull(chain) };
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

/** A record's item list that the next record can be stored as a change of, with the changes since its chain's full list. */
interface ItemsBase {
  id: string;
  items: readonly RequestItem[];
  changedSinceFull: number;
}

const REMEMBERED_SESSIONS = 16;
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
