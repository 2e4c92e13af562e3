/**
 * The replay task of the store worker (src/node/storeWorker.ts, bundled as dist/storeWorker.js):
 * imports a transcript and replays it into the session store, off the extension host's thread.
 */
import '../usePlatform';
import { getTokenCounter } from '../../core/accounting/tokenizer';
import { openStore } from '../store';
import { policyNamed } from '../../core/replay/baselines';
import { replayRun } from '../../core/replay/replay';
import { importTranscriptFile } from './readTranscriptFile';
import type { ReplayJob, ReplayOutcome } from './replayInWorker';

export async function replayJob(job: ReplayJob): Promise<ReplayOutcome> {
  try {
    const transcript = importTranscriptFile(job.file);
    // Its own writer on the same folder: the host's store sees the new session when it reads.
    const store = await openStore(job.storeFolder, { wasmPath: job.wasmPath });
    try {
      const report = await replayRun({
        label: job.label,
        messages: transcript.messages,
        policy: policyNamed('tally'),
        store,
        counter: getTokenCounter('o200k_base'),
        contextWindow: job.window,
        maxOutputTokens: Math.min(8_192, Math.floor(job.window / 8)),
        ...(job.settings ? { baseSettings: job.settings } : {}),
      });
      await store.flush();
      return { ok: true, sessionId: report.sessionId, requests: report.requests, warnings: transcript.meta.warnings };
    } finally {
      await store.close();
    }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
