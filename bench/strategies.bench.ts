/**
 * Strategy benchmark (issue "Transcripts, replay and benchmarks"): every recorded run in
 * ../shared/trajectories replayed at 16K, 32K and 128K windows under five context policies.
 * Writes bench/results/strategies.json and prints a table per window.
 * Run: node -r ./test/register.cjs bench/strategies.bench.ts [trajectories-folder] [windows, e.g. 16000,32000]
 * (with windows named, only those are replayed and printed; the results file is written for all three).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import { openStore } from '../src/node/store';
import { REPLAY_POLICIES } from '../src/core/replay/baselines';
import { FACT_KINDS, FACT_LABELS, finalChangePathsOf } from '../src/core/replay/facts';
import { replayRun, type RunReport } from '../src/core/replay/replay';
import { addRetention, emptyRetention, retentionShare, type KindRetention } from '../src/core/replay/retention';
import type { FactKind } from '../src/core/replay/facts';
import { importTranscriptFile } from '../src/node/transcripts/readTranscriptFile';
import type { ImportedTranscript } from '../src/core/transcripts/types';

const ALL_WINDOWS = [16_000, 32_000, 128_000];
const WINDOWS = process.argv[3] ? process.argv[3].split(',').map(Number) : ALL_WINDOWS;

function files(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.(traj|traj\.json|json|jsonl)$/.test(name) && !/README/i.test(name)) out.push(path);
  }
  return out.sort();
}

interface Aggregate {
  policy: string;
  window: number;
  runs: number;
  violations: number;
  runsWithViolations: number;
  peakTokens: number;
  cumulativeInputTokens: number;
  prefixReuse: number;
  meanPrefixReuse: number;
  effectiveCost: number;
  compactions: number;
  /** Facts due and present in the requests after each run's first compaction, by kind. */
  retention: Record<FactKind, KindRetention>;
  /** Share of all due facts present (every kind together). */
  retentionOverall: number;
  seconds: number;
}

function overall(retention: Record<FactKind, KindRetention>): number {
  const due = FACT_KINDS.reduce((n, k) => n + retention[k].due, 0);
  const present = FACT_KINDS.reduce((n, k) => n + retention[k].present, 0);
  return due ? present / due : 1;
}

async function main() {
  const folder = process.argv[2] ?? join(__dirname, '..', '..', 'shared', 'trajectories');
  const transcripts: ImportedTranscript[] = files(folder).map((f) => importTranscriptFile(f));
  const counter = getTokenCounter('o200k_base');
  const storeFolder = mkdtempSync(join(tmpdir(), 'tally-strategies-'));
  const store = await openStore(storeFolder, { debounceMs: 1e9 });
  const aggregates: Aggregate[] = [];
  const perRun: Array<Omit<RunReport, 'requestsDetail'>> = [];
  let tallySecondsAt128k = 0;
  for (const window of WINDOWS) {
    for (const policy of REPLAY_POLICIES) {
      const started = Date.now();
      const reports: RunReport[] = [];
      for (const t of transcripts) {
        reports.push(await replayRun({ label: t.meta.source, messages: t.messages, policy, store, counter, contextWindow: window, maxOutputTokens: Math.min(8_192, Math.floor(window / 8)), finalChangePaths: finalChangePathsOf(t.meta) }));
      }
      const seconds = (Date.now() - started) / 1000;
      if (policy.name === 'tally' && window === 128_000) tallySecondsAt128k = seconds;
      const cumulative = reports.reduce((n, r) => n + r.cumulativeInputTokens, 0);
      const retention = emptyRetention();
      for (const r of reports) addRetention(retention, r.retention.kinds);
      aggregates.push({
        policy: policy.name,
        window,
        runs: reports.length,
        violations: reports.reduce((n, r) => n + r.violations.overWindow + r.violations.brokenPairs, 0),
        runsWithViolations: reports.filter((r) => r.violations.overWindow + r.violations.brokenPairs > 0).length,
        peakTokens: Math.max(...reports.map((r) => r.peakRequestTokens)),
        cumulativeInputTokens: cumulative,
        prefixReuse: reports.reduce((n, r) => n + r.prefixReuse * r.cumulativeInputTokens, 0) / cumulative,
        meanPrefixReuse: reports.reduce((n, r) => n + r.meanPrefixReuse, 0) / reports.length,
        effectiveCost: reports.reduce((n, r) => n + r.effectiveCost, 0),
        compactions: reports.reduce((n, r) => n + r.compactions, 0),
        retention,
        retentionOverall: overall(retention),
        seconds,
      });
      for (const { requestsDetail: _detail, retention: runRetention, ...rest } of reports) perRun.push({ ...rest, retention: { ...runRetention, lost: runRetention.lost.slice(0, 20) } });
    }
  }
  await store.close();
  rmSync(storeFolder, { recursive: true, force: true });

  for (const window of WINDOWS) {
    const rows = aggregates.filter((a) => a.window === window);
    const none = rows.find((r) => r.policy === 'none')!;
    console.log(`\nwindow ${window.toLocaleString('en-US')} — ${transcripts.length} runs`);
    console.log('policy               violations  peak      cumulative input  vs none   prefix reuse  effective cost  compactions  seconds');
    for (const r of rows) {
      console.log(
        `${r.policy.padEnd(20)} ${String(r.violations).padStart(10)}  ${r.peakTokens.toLocaleString('en-US').padStart(8)}  ${r.cumulativeInputTokens.toLocaleString('en-US').padStart(16)}  ${`${(((r.cumulativeInputTokens - none.cumulativeInputTokens) / none.cumulativeInputTokens) * 100).toFixed(1)}%`.padStart(7)}  ${`${(r.prefixReuse * 100).toFixed(1)}%`.padStart(12)}  ${Math.round(r.effectiveCost).toLocaleString('en-US').padStart(14)}  ${String(r.compactions).padStart(11)}  ${r.seconds.toFixed(1).padStart(7)}`,
      );
    }
    console.log(`retention after the first compaction — ${FACT_KINDS.map((k) => FACT_LABELS[k]).join(' | ')} | all`);
    for (const r of rows) {
      console.log(`${r.policy.padEnd(20)} ${FACT_KINDS.map((k) => retentionShare(r.retention[k]).padStart(8)).join('  ')}  ${`${(r.retentionOverall * 100).toFixed(1)}%`.padStart(7)}`);
    }
  }
  console.log(`\nreplaying all ${transcripts.length} runs with Tally's chain at 128K took ${tallySecondsAt128k.toFixed(1)} s`);
  if (WINDOWS.join() !== ALL_WINDOWS.join()) return;
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'strategies.json'),
    JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version }, runs: transcripts.length, tallySecondsAt128k, aggregates, perRun }, null, 2) + '\n',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
