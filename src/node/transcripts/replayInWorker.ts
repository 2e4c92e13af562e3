import { bundledWorker } from '../bundledWorker';
import type { ContextSettings } from '../../core/settings';

export interface ReplayJob {
  file: string;
  label: string;
  window: number;
  /** The session store's folder; the worker writes the replayed session there as its own writer. */
  storeFolder: string;
  wasmPath?: string;
  /** The user's context settings (thresholds, offloading…): the replay keeps the rules the live session will measure it by. */
  settings?: ContextSettings;
}

/** What the store worker (src/node/storeWorker.ts) is started to do. */
export type StoreWorkerTask = { task: 'replay'; job: ReplayJob } | { task: 'sql-warm-up'; wasmPath?: string };

export type ReplayOutcome =
  | { ok: true; sessionId: string; requests: number; warnings: string[] }
  | { ok: false; message: string };

/**
 * Imports and replays a transcript in a worker thread (`workerPath`: the bundled
 * dist/storeWorker.js) so the calling thread stays responsive; resolves with the new session's
 * id, rejects with the import or replay error.
 */
export function replayInWorker(workerPath: string, job: ReplayJob): Promise<{ sessionId: string; requests: number; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    const worker = bundledWorker(workerPath, { workerData: { task: 'replay', job } satisfies StoreWorkerTask });
    let settled = false;
    worker.once('message', (outcome: ReplayOutcome) => {
      settled = true;
      if (outcome.ok) resolve({ sessionId: outcome.sessionId, requests: outcome.requests, warnings: outcome.warnings });
      else reject(new Error(outcome.message));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the replay worker stopped (exit code ${code}) before answering`));
    });
  });
}
