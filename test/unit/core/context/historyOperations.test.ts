import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runGeneratedCase, type CaseStats } from '../../../support/generatedHistory';
import { StoreReloads } from '../../../support/storeReloads';

/**
 * Rewind, fork and resume as properties of generated sessions (test/support/generatedHistory.ts):
 * each case is a random sequence of turns, compactions, pins, rewinds, forks and resumes on a real
 * ContextSession, the real strategies and a sql.js store in a temp folder, every operation judged
 * as it happens. Cases run side by side, twenty to a store, so that one reload from disk serves
 * every case that resumes. TALLY_HISTORY_SEED=<n> runs one case alone; TALLY_HISTORY_CASES and
 * TALLY_HISTORY_FROM choose how many cases and the first seed; TALLY_HISTORY_TRACE=1 prints each
 * operation with the working context it started from.
 */
const one = process.env.TALLY_HISTORY_SEED;
const first = one !== undefined ? Number(one) : Number(process.env.TALLY_HISTORY_FROM ?? 1);
const cases = one !== undefined ? 1 : Number(process.env.TALLY_HISTORY_CASES ?? 200);
const TO_A_STORE = 20;

describe('rewind, fork and resume on generated sessions', function () {
  this.timeout(600_000);

  it(`keep the working context exactly as the user is told (${cases} cases from seed ${first})`, async () => {
    // A memory-backed file system where there is one: the store is the same, its many small files cost less.
    const root = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'tally-history-'));
    const total: CaseStats = { turns: 0, compactions: 0, rewinds: 0, refused: 0, unsummarized: 0, forks: 0, resumes: 0 };
    const failures: Array<{ seed: number; text: string }> = [];
    try {
      for (let from = first; from < first + cases; from += TO_A_STORE) {
        const reloads = await StoreReloads.open(join(root, String(from)));
        const seeds = Array.from({ length: Math.min(TO_A_STORE, first + cases - from) }, (_, i) => from + i);
        try {
          await Promise.all(
            seeds.map((seed) =>
              reloads.run(() => runGeneratedCase(seed, reloads)).then(
                (stats) => {
                  for (const key of Object.keys(total) as Array<keyof CaseStats>) total[key] += stats[key];
                },
                (error: unknown) => failures.push({ seed, text: error instanceof Error ? error.stack ?? error.message : String(error) }),
              ),
            ),
          );
        } finally {
          await reloads.close().catch(() => undefined);
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    if (process.env.TALLY_HISTORY_STATS) console.log(total);
    const firstFailure = failures.sort((a, b) => a.seed - b.seed)[0];
    if (firstFailure) {
      throw new Error(`${failures.length} of ${cases} cases failed; seed ${firstFailure.seed}: ${firstFailure.text}\n(run it alone: TALLY_HISTORY_SEED=${firstFailure.seed} npx mocha --no-package -r ./test/register.cjs --timeout 60000 test/unit/core/context/historyOperations.test.ts)`);
    }
  });
});
