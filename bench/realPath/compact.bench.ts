/**
 * Compacting a long never-compacted session through the built extension (compactRun.ts): the
 * inspector's "Compact now" on a session of N messages (seedSession.ts, flushed every 250 messages
 * as a session that ran that long) with a real model's window. Reports the wall time until the
 * compaction is written and the user told, the host's CPU over it, its longest event-loop block,
 * the bytes posted to the views, and the time the store then takes to close (its pending writes and
 * fsyncs). Each (build, round) runs in a fresh process; with --old the other build runs in every
 * round too, the order alternating. With --profile DIR, a CPU profile of each run's compaction is
 * written there (profileSummary.ts reads it). Writes bench/results/realPath-compact.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/compact.bench.ts [--messages 50000] [--window 200000] [--old <extension root>] [--rounds 1] [--profile <dir>]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { median } from '../median';
import type { CompactRunOptions, CompactRunResult } from './compactRun';
import { seedSession } from './seedSession';
import { REPOSITORY_ROOT } from './startExtension';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function runOnce(options: CompactRunOptions): CompactRunResult {
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), join(__dirname, 'compactRun.ts'), JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, timeout: 30 * 60_000 });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as CompactRunResult;
}

async function main() {
  const messages = Number(flag('messages') ?? 50_000);
  const contextWindow = Number(flag('window') ?? 200_000);
  const rounds = Number(flag('rounds') ?? 1);
  const profileDir = flag('profile');
  const oldRoot = flag('old');
  const builds = [{ name: 'new', root: REPOSITORY_ROOT }, ...(oldRoot ? [{ name: 'old', root: oldRoot }] : [])];
  const loadBefore = loadavg();
  const seeded = mkdtempSync(join(tmpdir(), 'tally-bench-compact-seed-'));
  const results = new Map<string, CompactRunResult[]>(builds.map((b) => [b.name, []]));
  try {
    await seedSession(seeded, messages, 250);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const profileFile = profileDir ? join(profileDir, `compact-${build.name}-${round}.cpuprofile`) : undefined;
        const result = runOnce({ extensionRoot: build.root, seededStorage: seeded, contextWindow, profileFile });
        results.get(build.name)!.push(result);
        console.error(`${messages} messages, ${build.name}, round ${round + 1}: ${JSON.stringify(result)} (load ${loadavg()[0].toFixed(1)})`);
      }
    }
  } finally {
    rmSync(seeded, { recursive: true, force: true });
  }
  const rows = builds.map((build) => {
    const runs = results.get(build.name)!;
    const med = (key: keyof CompactRunResult) => Math.round(median(runs.map((r) => Number(r[key]))));
    return { build: build.name, messages, compactMs: med('compactMs'), cpuMs: med('cpuMs'), blockMs: med('blockMs'), closeMs: med('closeMs'), chatPostedKB: med('chatPostedKB'), inspectorPostedKB: med('inspectorPostedKB'), messagesAfter: med('messagesAfter'), tokensBefore: med('tokensBefore'), tokensAfter: med('tokensAfter'), summaryRequests: med('summaryRequests'), rssMiB: med('rssMiB'), runs: runs.length };
  });
  console.table(rows);
  mkdirSync(join(REPOSITORY_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(REPOSITORY_ROOT, 'bench', 'results', 'realPath-compact.json'),
    `${JSON.stringify({ date: new Date().toISOString(), load: { before: loadBefore, after: loadavg() }, builds: Object.fromEntries(builds.map((b) => [b.name, b.root])), contextWindow, rounds, measures: { compactMs: 'the inspector’s confirmCompaction intent until its handler finished (compaction written, user told)', cpuMs: 'host CPU over it', blockMs: 'longest event-loop block over it', closeMs: 'deactivating afterwards: the store’s pending writes and fsyncs' }, rows, runs: Object.fromEntries(results) }, null, 2)}\n`,
  );
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
