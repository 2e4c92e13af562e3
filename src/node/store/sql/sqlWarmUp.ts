import { bundledWorker } from '../../bundledWorker';
import type { Database, SqlJsStatic } from 'sql.js';
import { Worker } from 'worker_threads';
import type { StoreWorkerTask } from '../../transcripts/replayInWorker';
import { segmentFacts } from '../segments/segmentSummaries';
import { segmentLists } from '../segments/sealedLists';
import { exportImage, newDatabase, rows, tuneConnection } from './connection';
import { runPrepared, textBytes } from './preparedStatements';
import { sqlRuntime } from './sqlRuntime';
import { warmUpSearch } from '../sessionIndex/sessionSearch';

const SESSION = 'warmup';

/** A warm-up started: `done` says whether it ran to the end; `stop` ends it where it is. */
export interface SqlWarmUp {
  done: Promise<boolean>;
  stop(): void;
}

/**
 * Makes sql.js ready before the window's first read, off the extension host's thread. V8 compiles
 * WebAssembly one function at a time, the first time each runs: the first database a window
 * opened, checked and queried paid for compiling most of SQLite on the way (30–60 ms on the
 * chat's first state). Compiled code belongs to the module, which V8 shares between the threads
 * of a process that compile the same bytes: so this loads sql.js here (compiled lazily, a few
 * ms), then runs the work of an open once in a worker thread (`workerPath`: the bundled
 * dist/storeWorker.js) on a small database of its own; the functions it compiles are the
 * store's from then on. It is for the time before the store opens: `stop` (called when it does)
 * ends the worker, whose work would then only compete with the store's for the processor. It never
 * fails: a failure is met again, and reported, by the store's open.
 */
export function startSqlWarmUp(wasmPath: string, workerPath: string): SqlWarmUp {
  let stopped = false;
  let worker: Worker | undefined;
  const done = (async () => {
    try {
      // First here: the worker's copy of the module then joins this thread's (V8 keeps one per bytes while it lives).
      await sqlRuntime(wasmPath);
      if (stopped) return false;
      const started = bundledWorker(workerPath, { workerData: { task: 'sql-warm-up', wasmPath } satisfies StoreWorkerTask });
      worker = started;
      started.unref(); // never keeps the extension host alive
      return await new Promise<boolean>((resolve) => {
        started.once('message', (message) => resolve(message === WARMED));
        started.once('exit', () => resolve(false));
        started.once('error', () => resolve(false));
      });
    } catch {
      return false;
    }
  })();
  return {
    done,
    stop() {
      stopped = true;
      void worker?.terminate();
    },
  };
}

/** What the worker posts once the warm-up ran to the end. */
export const WARMED = 'warmed';

/** The work of a window's first open, first turn and first search, on a small database: what the worker runs. */
export function warmUp(SQL: SqlJsStatic): void {
  let db: Database | undefined;
  try {
    // Written as the store writes: schema, then rows through prepared statements, one body spilling over a page.
    db = newDatabase(SQL);
    const message = (id: string, createdAt: number, content: string) => textBytes(JSON.stringify({ id, role: 'user', kind: 'user', content, createdAt, pinned: false }));
    const insertMessage = 'INSERT OR REPLACE INTO messages (id, session_id, created_at, written_at, body) VALUES (?, ?, ?, ?, CAST(? AS TEXT))';
    runPrepared(db, insertMessage, ['m1', SESSION, 1, 1, message('m1', 1, 'x'.repeat(6000))]);
    runPrepared(db, insertMessage, ['m2', SESSION, 2, 2, message('m2', 2, 'y')]);
    runPrepared(db, 'INSERT OR REPLACE INTO turn_usage (id, session_id, request_index, created_at, body) VALUES (?, ?, ?, ?, CAST(? AS TEXT))', ['u0', SESSION, 0, 2, textBytes('{"id":"u0","requestIndex":0,"storedItems":{"full":[]}}')]);
    runPrepared(db, 'INSERT OR REPLACE INTO compaction_events (id, session_id, started_at, body) VALUES (?, ?, ?, CAST(? AS TEXT))', ['c0', SESSION, 2, textBytes('{"id":"c0"}')]);
    // Saved and opened again from its image, checked, as every file the store reads.
    const image = exportImage(db);
    db.close();
    db = new SQL.Database(image);
    tuneConnection(db);
    db.exec('PRAGMA user_version');
    db.exec('PRAGMA quick_check');
    // The reads of an open: a segment's facts and lists, the newest messages, their bodies by id.
    segmentFacts(db, SESSION);
    segmentLists(db, SESSION);
    const newest = rows(db, 'SELECT id, created_at, written_at, length(body) AS size FROM messages WHERE session_id = ? AND created_at <= ? ORDER BY created_at DESC LIMIT ?', [SESSION, 10, 5]);
    rows(db, 'SELECT id, written_at, body FROM messages WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(newest.map((r) => r.id))]);
    rows(db, 'SELECT id, written_at, body FROM messages WHERE session_id = ? AND created_at > ?', [SESSION, 0]);
    // A search of past sessions: an FTS4 match (hundreds of sql.js functions no other read runs).
    warmUpSearch(db);
  } finally {
    db?.close();
  }
}
