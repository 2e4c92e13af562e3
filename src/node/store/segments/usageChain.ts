import { nextTurn } from '../../../core/nextTurn';
import type { RequestItem, RequestUsageRecord } from '../../../core/model/records';
import { ReplayedItemList, type StoredRequestItems } from '../../../core/model/requestItemsDelta';
import { eachSegment } from './segmentReads';
import { ITEMS_KEY } from './sealedLists';
import { rows, type Row } from '../sql/connection';
import type { StoreParts } from '../storeParts';

/** A usage row as stored: its item list in full or as a change (older rows carry `items`). */
export type StoredRequestUsage = Omit<RequestUsageRecord, 'items'> & { items?: RequestItem[]; storedItems?: StoredRequestItems };

/** Where a usage body's item list stored as a change names its base record. */
const BASE_KEY = `${ITEMS_KEY}{"base":"`;

/**
 * Request indexes read per query, newest first, with a turn of the event loop between: a session
 * that only grew rests its latest list on thousands of small changes (one a request since its last
 * full list), read in one pass they held the host for hundreds of milliseconds.
 */
export const CHAIN_PAGE = 400;
/** Bodies parsed, and list positions replayed, between two turns of the event loop. */
const SLICE_CHARS = 256 * 1024;
const SLICE_POSITIONS = 20_000;

/** What a chain read did: the pages queried, large bodies read alone, pauses (tests read it to see the work come in slices). */
export const chainWork = { pages: 0, slices: 0, bodies: 0 };

interface LinkRow {
  index: number;
  createdAt: number;
  /** The record this one's list is a change of; undefined for a full list (or a body not read yet). */
  base?: string;
  /** Undefined for a large body (a full list of a long session) until the chain reaches it. */
  body?: string;
}

/** Bodies up to this size come with a page; a larger one (a long session's full list) is read alone, once the chain reaches it. */
const PAGED_BODY_BYTES = 64 * 1024;

function baseOf(body: string): string | undefined {
  const at = body.indexOf(BASE_KEY);
  return at < 0 ? undefined : body.slice(at + BASE_KEY.length, body.indexOf('"', at + BASE_KEY.length));
}

/**
 * The stored rows of request `requestIndex`'s record and the records its list rests on, oldest
 * first, the record last; undefined when no such request is stored or a row of the chain cannot be
 * read. Rows are read a page of request indexes at a time (the segments outside a page are not
 * opened), and the page after is read only while the chain has not reached a full list.
 */
export async function readUsageChain(parts: StoreParts, sessionId: string, requestIndex: number): Promise<StoredRequestUsage[] | undefined> {
  const found = new Map<string, LinkRow>();
  const pageSql = `SELECT id, request_index, created_at, CASE WHEN octet_length(body) <= ${PAGED_BODY_BYTES} THEN body END AS body FROM turn_usage WHERE session_id = ? AND request_index BETWEEN ? AND ?`;
  // The same record a list in request order finds first: the earliest of its index.
  let target: string | undefined;
  // The chain from the target back, as far as it is known; `waiting`: a row of it whose body is not read yet.
  let chain: string[] = [];
  let waiting: string | undefined;
  const follow = () => {
    if (waiting !== undefined) return;
    const visited = new Set(chain);
    let at = chain.length ? found.get(chain[chain.length - 1])!.base : target;
    while (at !== undefined && !visited.has(at) && found.has(at)) {
      if (found.get(at)!.body === undefined) {
        waiting = at;
        return;
      }
      visited.add(at);
      chain.push(at);
      at = found.get(at)!.base;
    }
  };
  const complete = () => waiting === undefined && chain.length > 0 && found.get(chain[chain.length - 1])!.base === undefined;
  const take = (r: Row) => {
    const id = String(r.id);
    const body = r.body === null ? undefined : String(r.body);
    const row: LinkRow = { index: Number(r.request_index), createdAt: Number(r.created_at), body, base: body === undefined ? undefined : baseOf(body) };
    found.set(id, row);
    if (row.index === requestIndex && (target === undefined || row.createdAt < found.get(target)!.createdAt)) {
      target = id;
      chain = [];
      waiting = undefined;
    }
  };
  for (let high = requestIndex; high >= 0 && !complete(); high -= CHAIN_PAGE) {
    if (high < requestIndex) await nextTurn();
    const low = Math.max(0, high - CHAIN_PAGE + 1);
    chainWork.pages++;
    await eachSegment(parts, sessionId, {
      keepOpen: true, // the next page reads the same segments
      newestFirst: true,
      newestBy: (facts) => facts.maxRequestIndex,
      done: complete,
      fromFacts: (facts) => facts.maxRequestIndex < low || (facts.minRequestIndex !== undefined && facts.minRequestIndex > high),
      fromRows: (db) => {
        for (const r of rows(db, pageSql, [sessionId, low, high])) take(r);
        follow();
      },
    });
    if (target === undefined) return undefined; // the request itself is in the first page
    while (waiting !== undefined) {
      await nextTurn();
      await readBody(parts, sessionId, waiting, found.get(waiting)!);
      waiting = undefined;
      follow();
    }
  }
  if (target === undefined) return undefined;
  const stored: StoredRequestUsage[] = [];
  let parsedChars = 0;
  for (const id of chain) {
    const body = found.get(id)!.body!;
    try {
      stored.push(JSON.parse(body) as StoredRequestUsage);
    } catch {
      // an unreadable row: the list that rests on it cannot be rebuilt
    }
    parsedChars += body.length;
    if (parsedChars >= SLICE_CHARS) {
      parsedChars = 0;
      chainWork.slices++;
      await nextTurn();
    }
  }
  return stored[0]?.id === target ? stored.reverse() : undefined;
}

/** Reads a large body left out of its page (empty when its row is gone meanwhile). */
async function readBody(parts: StoreParts, sessionId: string, id: string, row: LinkRow): Promise<void> {
  chainWork.bodies++;
  await eachSegment(parts, sessionId, {
    keepOpen: true,
    done: () => row.body !== undefined,
    fromFacts: (facts) => facts.maxRequestIndex < row.index || (facts.minRequestIndex !== undefined && facts.minRequestIndex > row.index),
    fromRows: (db) => {
      for (const r of rows(db, 'SELECT body FROM turn_usage WHERE id = ?', [id])) row.body = String(r.body);
    },
  });
  row.body ??= '';
  row.base = baseOf(row.body);
}

/**
 * The last record of a chain of rows (oldest first: a full list, then changes each resting on the row
 * before it) with its item list: the changes replayed on one list, not a list per row, a slice of
 * them at a time. An empty list when the chain does not start from a full list or a row's base is
 * missing (a damaged file set aside).
 */
export async function lastOfChain(chain: readonly StoredRequestUsage[]): Promise<RequestUsageRecord | undefined> {
  const last = chain[chain.length - 1];
  if (!last) return undefined;
  const { storedItems: _stored, items: _items, ...rest } = last;
  const first = chain[0];
  const full = first.items ?? (first.storedItems && 'full' in first.storedItems ? first.storedItems.full : undefined);
  if (!full) return { ...rest, items: [] };
  const list = new ReplayedItemList(full);
  let replayed = full.length;
  for (let i = 1; i < chain.length; i++) {
    const change = chain[i].storedItems;
    if (!change || 'full' in change || change.base !== chain[i - 1].id) return { ...rest, items: [] };
    list.apply(change.removed, change.added);
    replayed += change.removed.length + change.added.length + 1;
    if (replayed >= SLICE_POSITIONS) {
      replayed = 0;
      chainWork.slices++;
      await nextTurn();
    }
  }
  return { ...rest, items: list.done() };
}

/** The items added and removed by the changes of a chain since its full list. */
export function changesSinceFull(chain: readonly StoredRequestUsage[]): number {
  return chain.reduce((n, row) => (row.storedItems && 'base' in row.storedItems ? n + row.storedItems.added.length + row.storedItems.removed.length : 0), 0);
}
