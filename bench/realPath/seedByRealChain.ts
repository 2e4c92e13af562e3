/**
 * Seeds a bench's store by running the real chain: the messages go through the context manager the
 * extension uses (ContextSession with Tally's default strategies, through `replayRun`) into the
 * store the extension opens, so what a bench then opens holds what a session that ran that long
 * holds: the counts the session stored, a usage record per request (its items as changes of the
 * previous request's), tool outputs truncated or offloaded into stored results, and the
 * compactions the window made (their records, snapshots, archived results and segment facts),
 * not records written by hand.
 */
import { mkdirSync } from 'fs';
import { join } from 'path';
import { getTokenCounter } from '../../src/core/accounting/tokenizer';
import type { Message } from '../../src/core/model/message';
import { policyNamed } from '../../src/core/replay/baselines';
import { replayRun } from '../../src/core/replay/replay';
import { openStore } from '../../src/node/store';

export interface RealChainSeed {
  title: string;
  /** The conversation as the agent loop would have appended it (user, assistant steps with calls, tool results). */
  messages: readonly Message[];
  /** The window the session ran in: a window smaller than the conversation makes real compactions. */
  contextWindow: number;
  maxOutputTokens?: number;
  /** Messages written between two flushes, as a session that ran that long flushed; undefined: one flush at the end (one segment file). */
  flushEvery?: number;
}

export interface SeededSession {
  sessionId: string;
  requests: number;
  compactions: number;
  /** Wall time the seeding took, for the bench's log. */
  seedMs: number;
}

/** The model the seeded usage records name: the bench's model server serves `bench`. */
export const SEEDED_MODEL = 'bench';

export async function seedByRealChain(storageDir: string, seed: RealChainSeed): Promise<SeededSession> {
  const started = Date.now();
  const folder = join(storageDir, 'store');
  mkdirSync(folder, { recursive: true });
  const store = await openStore(folder, { debounceMs: 1e9 });
  const assistants = seed.messages.filter((m) => m.role === 'assistant').length;
  // The store is flushed every so many requests, the requests that answered about `flushEvery` messages.
  const flushEveryRequests = seed.flushEvery === undefined ? Infinity : Math.max(1, Math.round((seed.flushEvery * assistants) / Math.max(1, seed.messages.length)));
  let requests = 0;
  try {
    const report = await replayRun({
      label: seed.title,
      session: { title: seed.title, origin: 'chat' },
      model: SEEDED_MODEL,
      messages: seed.messages,
      policy: policyNamed('tally'),
      store,
      counter: getTokenCounter('o200k_base'),
      contextWindow: seed.contextWindow,
      maxOutputTokens: seed.maxOutputTokens ?? 8_192,
      checks: false,
      onRequest: async () => {
        if (++requests % flushEveryRequests === 0) await store.flush();
      },
    });
    return { sessionId: report.sessionId, requests: report.requests, compactions: report.compactions, seedMs: Date.now() - started };
  } finally {
    await store.close();
  }
}
