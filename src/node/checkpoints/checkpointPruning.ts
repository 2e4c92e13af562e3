import { promises as fsp } from 'fs';
import { join } from 'path';
import type { TurnCheckpoint } from '../../core/ports/checkpointStore';
import { leasedSessions } from './sessionLeases';

/** The checkpoint storage's cap: past it, the checkpoints of the sessions used longest ago go first. */
export const DEFAULT_CHECKPOINT_STORAGE_BYTES = 500 * 1024 * 1024;
/**
 * Content no checkpoint names is removed only once it is this old: a window may have just stored it
 * for a turn whose record is not written yet (every window refreshes the time of the content it
 * relies on well within this, see FileCheckpointStore).
 */
export const UNREFERENCED_CONTENT_GRACE_MS = 24 * 60 * 60 * 1000;

export interface PruneOptions {
  /**
   * The sessions that still exist: the checkpoints of any other session are removed, once its last
   * checkpoint is past the grace time (a session another window created just now may not be listed yet).
   */
  liveSessions?: ReadonlySet<string>;
  /** Sessions whose checkpoints are never dropped (the one open now); so are those any window holds a lease on (see SessionLeases). */
  keepSessions?: ReadonlySet<string>;
  maxBytes?: number;
  now?: number;
}

export interface PruneOutcome {
  removedSessions: string[];
  removedContentFiles: number;
  /** The bytes of content kept afterwards. */
  keptBytes: number;
}

interface StoredSession {
  id: string;
  lastUsed: number;
  hashes: Set<string>;
}

const HASH = /^[0-9a-f]{64}$/;
const SESSION_FOLDER = /^[A-Za-z0-9_-]{1,128}$/;

const hashesOf = (checkpoint: TurnCheckpoint): string[] =>
  checkpoint.files.flatMap((f) => [f.before, f.after]).flatMap((s) => (s?.kind === 'stored' ? [s.hash] : []));

/** Every content file: its hash, size and modification time. */
async function contentFiles(root: string): Promise<Array<{ hash: string; path: string; size: number; mtimeMs: number }>> {
  const out: Array<{ hash: string; path: string; size: number; mtimeMs: number }> = [];
  const content = join(root, 'content');
  for (const prefix of await fsp.readdir(content).catch(() => [] as string[])) {
    for (const name of await fsp.readdir(join(content, prefix)).catch(() => [] as string[])) {
      if (!HASH.test(name)) continue;
      const path = join(content, prefix, name);
      const stat = await fsp.stat(path).catch(() => undefined);
      if (stat?.isFile()) out.push({ hash: name, path, size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  return out;
}

/**
 * Keeps the checkpoint storage bounded: removes the checkpoints of deleted sessions, drops the
 * checkpoints of the sessions used longest ago while the content they need passes the cap, and
 * removes content no remaining checkpoint names (once past the grace time). A session open in any
 * window (a fresh lease) or kept by the caller is never touched.
 */
export async function pruneCheckpoints(
  root: string,
  load: (sessionId: string) => Promise<TurnCheckpoint[]>,
  removeSession: (sessionId: string) => Promise<void>,
  options: PruneOptions = {},
): Promise<PruneOutcome> {
  const now = options.now ?? Date.now();
  const maxBytes = options.maxBytes ?? DEFAULT_CHECKPOINT_STORAGE_BYTES;
  const removedSessions: string[] = [];
  const sessions: StoredSession[] = [];
  const kept = new Set([...(options.keepSessions ?? []), ...(await leasedSessions(root, now))]);
  for (const id of await fsp.readdir(join(root, 'turns')).catch(() => [] as string[])) {
    if (!SESSION_FOLDER.test(id)) continue;
    const checkpoints = await load(id).catch(() => [] as TurnCheckpoint[]);
    const lastUsed = Math.max(0, ...checkpoints.map((c) => c.createdAt));
    if (options.liveSessions && !options.liveSessions.has(id) && !kept.has(id) && now - lastUsed >= UNREFERENCED_CONTENT_GRACE_MS) {
      await removeSession(id);
      removedSessions.push(id);
      continue;
    }
    sessions.push({ id, lastUsed, hashes: new Set(checkpoints.flatMap(hashesOf)) });
  }

  const files = await contentFiles(root);
  const sizes = new Map(files.map((f) => [f.hash, f.size]));
  const referenced = () => {
    const hashes = new Set(sessions.flatMap((s) => [...s.hashes]));
    return { hashes, bytes: [...hashes].reduce((sum, h) => sum + (sizes.get(h) ?? 0), 0) };
  };
  let named = referenced();
  const oldestFirst = sessions.filter((s) => !kept.has(s.id)).sort((a, b) => a.lastUsed - b.lastUsed);
  for (const session of oldestFirst) {
    if (named.bytes <= maxBytes) break;
    await removeSession(session.id);
    removedSessions.push(session.id);
    sessions.splice(sessions.indexOf(session), 1);
    named = referenced();
  }

  let removedContentFiles = 0;
  let keptBytes = 0;
  for (const file of files) {
    if (named.hashes.has(file.hash) || now - file.mtimeMs < UNREFERENCED_CONTENT_GRACE_MS) {
      keptBytes += file.size;
      continue;
    }
    await fsp.rm(file.path, { force: true });
    removedContentFiles++;
  }
  return { removedSessions, removedContentFiles, keptBytes };
}
