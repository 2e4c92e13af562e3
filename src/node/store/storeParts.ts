import { join } from 'path';
import type { Database, SqlJsStatic } from 'sql.js';
import type { Flusher } from './files/flusher';
import type { FileStat, FolderListings } from './files/folderListings';
import { StoreLayout } from './files/storeLayout';
import type { OpenDatabases } from './files/openDatabases';
import type { OwnFiles } from './files/ownFiles';
import type { StoreProblems } from './files/storeProblems';
import type { SealedLists } from './segments/sealedLists';
import type { SegmentSummaries } from './segments/segmentSummaries';

/** What the parts of a store share: where files are, how they are opened, saved and reported. */
export interface StoreParts {
  readonly SQL: SqlJsStatic;
  readonly layout: StoreLayout;
  readonly problems: StoreProblems;
  readonly reads: OpenDatabases;
  readonly own: OwnFiles;
  readonly flusher: Flusher;
  readonly summaries: SegmentSummaries;
  /** The lists of sealed segments, taken when each is first opened. */
  readonly sealedLists: SealedLists;
  /** Session folders' listings, shared by the reads of a burst (see folderListings.ts). */
  readonly folders: FolderListings;
  now(): number;
  /** A write time, strictly increasing within this writer: the latest write of a row wins. */
  stamp(): number;
}

/** This writer's file at `path`, marked as changed (saved after the debounce). */
export async function ownDb(parts: StoreParts, path: string): Promise<Database> {
  const file = await parts.own.get(path);
  parts.flusher.touch(file);
  return file.db;
}

/** Every writer's files of a session whose names match `suffix`, sorted. */
export async function filesOf(parts: StoreParts, sessionId: string, suffix: RegExp): Promise<string[]> {
  return (await listedFiles(parts, sessionId, suffix)).paths;
}

/**
 * Every writer's files of a session whose names match `suffix`, sorted, and the stat of each as
 * listed (shared by the reads of a burst; see folderListings.ts). This window's own files are
 * taken from memory at each call: a file it has not saved yet is on no listing.
 */
export async function listedFiles(parts: StoreParts, sessionId: string, suffix: RegExp): Promise<{ paths: string[]; stat(path: string): Promise<FileStat | undefined> }> {
  const dir = parts.layout.sessionDir(sessionId);
  const listing = await parts.folders.listing(dir);
  const paths = new Set(listing.names.filter((n) => suffix.test(n)).map((n) => join(dir, n)));
  for (const path of parts.own.pathsUnder(dir)) if (suffix.test(path)) paths.add(path);
  return { paths: [...paths].sort(), stat: (path) => listing.stat(path) };
}

/**
 * Calls `visit` with each readable database of a session's files, one at a time: at most one of
 * them is opened for this call, so a session with many files cannot exhaust the open bound.
 */
export async function eachSessionDb(parts: StoreParts, sessionId: string, suffix: RegExp, visit: (db: Database) => void): Promise<void> {
  const paths = await filesOf(parts, sessionId, suffix);
  const sealed = sealedSegments(paths);
  for (const path of paths) await visitFile(parts, path, sealed.has(path), visit);
}

/**
 * Calls `visit` with the database of one of a session's files: this window's from memory (taken at
 * the moment of the visit: a save may have sealed and closed it since it was listed), a sealed one
 * opened for this visit and closed after it (unless `keepOpen`; its lists are kept, see
 * sealedLists.ts), any other from the open files.
 */
export async function visitFile(parts: StoreParts, path: string, sealed: boolean, visit: (db: Database) => void, keepOpen = false): Promise<void> {
  const own = parts.own.peek(path);
  if (own) return visit(own);
  // A sealed segment gives the lists every open of the session reads while it is open anyway,
  // unless its recorded facts hold them (a list read that finds the file changed takes its own).
  const segment = StoreLayout.segmentOf(path);
  const visitSealed = (db: Database) => {
    if (!segment || !parts.summaries.holdsLists(segment.sessionId, path)) parts.sealedLists.take(path, db);
    visit(db);
  };
  if (sealed && !keepOpen) await parts.reads.once(path, visitSealed); // never written again: closed once read
  else await parts.reads.read(path, sealed ? visitSealed : visit);
}

/** Segments with a later segment of the same writer: sealed, never written again. */
export function sealedSegments(paths: readonly string[]): Set<string> {
  const last = new Map<string, number>();
  const numbered = paths.map((path) => ({ path, match: /([^\\/]+)\.seg(\d+)\.sqlite$/.exec(path) }));
  for (const { match } of numbered) if (match) last.set(match[1], Math.max(last.get(match[1]) ?? -1, Number(match[2])));
  return new Set(numbered.filter(({ match }) => match && Number(match[2]) < last.get(match[1])!).map(({ path }) => path));
}
