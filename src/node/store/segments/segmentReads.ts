import { basename } from 'path';
import { nextTurn } from '../../../core/nextTurn';
import type { Database } from 'sql.js';
import { SEGMENT_FILE } from '../files/storeLayout';
import { segmentFacts, type SegmentFacts } from './segmentSummaries';
import { SEGMENT_LISTS, segmentLists, type SegmentList, type SegmentListRows } from './sealedLists';
import { rows, type Row } from '../sql/connection';
import { eachSessionDb, listedFiles, sealedSegments, visitFile, type StoreParts } from '../storeParts';

/** A read over a session's segments that can often be answered from a segment's facts alone. */
export interface SegmentRead {
  /** Answers for this segment from its facts; `false` when its rows are needed. */
  fromFacts(facts: SegmentFacts): boolean;
  /** Reads what it needs from the segment's database (`path`: its file). */
  fromRows(db: Database, path: string): void;
  /**
   * Visit the segments most likely to hold the newest messages first: this window's, then those
   * without known facts, then by newest message. A read that stops early (`fromFacts` answering
   * for the rest) asks for this.
   */
  newestFirst?: boolean;
  /** What "newest" means for `newestFirst` (default: the newest message's time). */
  newestBy?(facts: SegmentFacts): number;
  /** Keep the segments read open (cached) even when sealed: the read comes back to them. */
  keepOpen?: boolean;
  /** True once the read has what it needs: the segments left are not visited. */
  done?(): boolean;
}

interface Segment {
  path: string;
  /** This window's segment, in memory when listed. */
  own?: boolean;
  stat?: { size: number; mtimeMs: number };
  facts?: SegmentFacts;
}

/**
 * Visits each segment of a session, one at a time: a segment whose recorded facts answer the read
 * is not opened; any other is read, and its facts recorded for next time. This window's segments
 * in memory are always read (they change with every turn).
 */
export async function eachSegment(parts: StoreParts, sessionId: string, read: SegmentRead): Promise<void> {
  const { paths, stat: statOf } = await listedFiles(parts, sessionId, SEGMENT_FILE);
  const sealed = sealedSegments(paths);
  const segments: Segment[] = [];
  for (const path of paths) {
    if (parts.own.peek(path)) {
      segments.push({ path, own: true });
      continue;
    }
    const stat = await statOf(path);
    if (!stat) {
      // Removed meanwhile (merged by another window): its rows are in that window's files, which
      // the reads that follow find in a new listing.
      parts.folders.forgetFolderOf(path);
      continue;
    }
    segments.push({ path, stat, facts: await parts.summaries.factsOf(sessionId, path, stat) });
  }
  if (read.newestFirst) {
    const newest = read.newestBy ?? ((facts: SegmentFacts) => facts.maxCreatedAt);
    const rank = (s: Segment) => (s.own ? Infinity : s.facts ? newest(s.facts) : Number.MAX_VALUE);
    segments.sort((a, b) => rank(b) - rank(a));
  }
  let recorded = false;
  for (const { path, own, stat, facts } of segments) {
    if (read.done?.()) break;
    if (!own && facts && read.fromFacts(facts)) continue;
    let found: SegmentFacts | undefined;
    await visitFile(parts, path, sealed.has(path), (db) => {
      read.fromRows(db, path);
      // Facts are recorded for files on disk only: this window's segments change with every turn.
      if (!own && !facts) found = segmentFacts(db, sessionId);
    }, read.keepOpen);
    if (found) {
      await parts.summaries.record(sessionId, path, found, stat);
      recorded = true;
    }
  }
  if (recorded) await parts.summaries.save({ sessionId, names: paths.map((p) => basename(p)) });
}

/**
 * Each row of a list read over every segment of a session (usage figures, compaction records,
 * offloaded results), segment by segment in file order. A segment on disk gives the lists recorded
 * in its facts (segmentSummaries.ts) while unchanged, or those kept since a sealed one was opened
 * (sealedLists.ts); otherwise it is opened once and its lists are recorded for the next open.
 * This window's segments in memory are queried.
 */
export async function eachListRow(parts: StoreParts, sessionId: string, list: SegmentList, take: (row: Row) => void): Promise<void> {
  const { paths, stat: statOf } = await listedFiles(parts, sessionId, SEGMENT_FILE);
  const sealed = sealedSegments(paths);
  let recorded = false;
  for (const path of paths) {
    if (parts.own.peek(path)) {
      await visitFile(parts, path, sealed.has(path), (db) => {
        for (const r of rows(db, SEGMENT_LISTS[list], [sessionId])) take(r);
      });
      continue;
    }
    const stat = await statOf(path);
    if (!stat) {
      parts.folders.forgetFolderOf(path); // removed meanwhile, as above
      continue;
    }
    const isSealed = sealed.has(path);
    const got: { lists?: SegmentListRows; facts?: SegmentFacts } = {};
    const recordedLists = await parts.summaries.listsOf(sessionId, path, stat);
    got.lists = recordedLists ?? (isSealed ? parts.sealedLists.listsOf(path) : undefined);
    if (recordedLists) {
      if (isSealed) parts.sealedLists.keep(path, recordedLists);
    } else if (got.lists) {
      // Kept since another read opened it (resuming): recorded with the facts that read recorded.
      if (await parts.summaries.addLists(sessionId, path, stat, got.lists)) recorded = true;
    } else {
      const read = (db: Database) => {
        got.lists = parts.sealedLists.listsOf(path) ?? segmentLists(db, sessionId);
        got.facts = segmentFacts(db, sessionId);
      };
      if (isSealed) {
        await parts.sealedLists.rowsFor(path, list, () => visitFile(parts, path, true, read));
        got.lists ??= parts.sealedLists.listsOf(path); // opened for a read of another list at the same time
      } else {
        await visitFile(parts, path, false, read);
      }
      if (got.lists && got.facts && (await parts.summaries.record(sessionId, path, got.facts, stat, isSealed, got.lists))) recorded = true;
    }
    for (const r of got.lists?.[list] ?? []) take(r);
  }
  if (recorded) await parts.summaries.save({ sessionId, names: paths.map((p) => basename(p)) });
}

/** The records (`id`, JSON `body`) of a list over every segment, the latest file's copy of each id, sorted. */
export async function collectSegmentList<T>(parts: StoreParts, sessionId: string, list: SegmentList, order: (a: T, b: T) => number): Promise<T[]> {
  // Each id's bodies in file order, parsed afterwards (the latest that parses) a slice at a time:
  // 4,500 turns leave 9,000 usage records, which parsed in one go held the host.
  const bodies = new Map<string, string[]>();
  await eachListRow(parts, sessionId, list, (r) => {
    const id = String(r.id);
    const copies = bodies.get(id);
    if (copies) copies.push(String(r.body));
    else bodies.set(id, [String(r.body)]);
  });
  const newestFirst = Array.from(bodies.values(), (copies) => copies.reverse());
  return (await parseNewestReadable<T>(newestFirst, LIST_SLICE_CHARS)).sort(order);
}

/**
 * For each id, the first of its copies (newest first) that parses as JSON; an id none of whose
 * copies parses is left out (a damaged row, and no older copy). Parsed about `sliceChars`
 * characters at a time, with a turn of the event loop between slices.
 */
export async function parseNewestReadable<T>(copiesById: Iterable<readonly string[]>, sliceChars: number): Promise<T[]> {
  const out: T[] = [];
  let parsed = 0;
  for (const copies of copiesById) {
    for (const body of copies) {
      parsed += body.length;
      try {
        out.push(JSON.parse(body) as T);
        break;
      } catch {
        // an older copy, if any
      }
    }
    if (parsed >= sliceChars) {
      parsed = 0;
      await nextTurn();
    }
  }
  return out;
}

/** Characters of list bodies parsed between two turns of the event loop (about 1,000 usage records). */
const LIST_SLICE_CHARS = 256 * 1024;

/** Each record (`id`, JSON `body`) of a session's segments, the latest file's copy of each id, sorted. */
export async function collectRecords<T>(parts: StoreParts, sessionId: string, sql: string, order: (a: T, b: T) => number): Promise<T[]> {
  const byId = new Map<string, T>();
  await eachSessionDb(parts, sessionId, SEGMENT_FILE, (db) => {
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
