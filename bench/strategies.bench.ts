/**
 * Strategy benchmark (issue "Transcripts, replay and benchmarks"): every recorded run in
 * ../shared/trajectories replayed at 16K, 32K and 128K windows under five context policies.
 * Writes bench/results/strategies.json and prints a table per window.
 * Run: node -r ./test/register.cjs bench/strategies.bench.ts [trajectories-folder] [windows, e.g. 16000,32000] [--half 1|2] [--targets 0.2,0.3]
 * With windows named, only those are replayed and printed; `--half 1` or `--half 2` replays every
 * other run (sorted by path: the first, third, … or the second, fourth, …), a held-out split for
 * checking that a setting chosen on one half holds on the other; `--targets` adds Tally with other
 * compaction targets (`tally@0.3`) beside the default. The results file is written only for all
 * runs at all three windows with the default policies.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import { openStore } from '../src/node/store';
import { REPLAY_POLICIES, type ReplayPolicy } from '../src/core/replay/baselines';
import { withSettings, type ContextSettings } from '../src/core/settings';
import { FACT_KINDS, FACT_LABELS, finalChangePathsOf } from '../src/core/replay/facts';
import { replayRun, type RunReport } from '../src/core/replay/replay';
import { retentionShare, type KindRetention } from '../src/core/replay/retention';
import { totalsByPolicy, type PolicyTotal } from '../src/core/replay/policyTotals';
import { workingSetShares } from '../src/core/replay/workingSet';
import type { FactKind } from '../src/core/replay/facts';
import { importTranscriptFile } from '../src/node/transcripts/readTranscriptFile';
import type { ImportedTranscript } from '../src/core/transcripts/types';

const ALL_WINDOWS = [16_000, 32_000, 128_000];
const args = process.argv.slice(2);
const halfAt = args.indexOf('--half');
const HALF = halfAt >= 0 ? Number(args.splice(halfAt, 2)[1]) : undefined;
if (HALF !== undefined && HALF !== 1 && HALF !== 2) throw new Error('--half takes 1 or 2');
const targetsAt = args.indexOf('--targets');
const TARGETS = targetsAt >= 0 ? args.splice(targetsAt, 2)[1].split(',').map(Number) : [];
const WINDOWS = args[1] ? args[1].split(',').map(Number) : ALL_WINDOWS;
/** The policies replayed: the five, and Tally at each other target asked for. */
const POLICIES: ReplayPolicy[] = [
  ...REPLAY_POLICIES,
  ...TARGETS.map((target) => {
    const tally = REPLAY_POLICIES.find((p) => p.name === 'tally')!;
    return { ...tally, name: `tally@${target}`, settings: (base: ContextSettings) => withSettings({ ...base, summary: { ...base.summary, targetShare: target } }) };
  }),
];

function files(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.(traj|traj\.json|json|jsonl)$/.test(name) && !/README/i.test(name)) out.push(path);
  }
  return out.sort();
}

interface Aggregate extends PolicyTotal {
  window: number;
  runsWithViolations: number;
  peakTokens: number;
  prefixReuse: number;
  meanPrefixReuse: number;
  /** Share of all due facts present (every kind together). */
  retentionOverall: number;
  seconds: number;
}

function overall(retention: Record<FactKind, KindRetention>): number {
  const due = FACT_KINDS.reduce((n, k) => n + retention[k].due, 0);
  const present = FACT_KINDS.reduce((n, k) => n + retention[k].present, 0);
  return due ? present / due : 1;
}

const share = (present: number, due: number) => (due ? `${((present / due) * 100).toFixed(1)}%` : '—');
const n = (value: number) => Math.round(value).toLocaleString('en-US');

async function main() {
  const folder = args[0] ?? join(__dirname, '..', '..', 'shared', 'trajectories');
  const all = files(folder);
  const chosen = HALF === undefined ? all : all.filter((_, i) => i % 2 === HALF - 1);
  const transcripts: ImportedTranscript[] = chosen.map((f) => importTranscriptFile(f));
  const counter = getTokenCounter('o200k_base');
  const storeFolder = mkdtempSync(join(tmpdir(), 'tally-strategies-'));
  const store = await openStore(storeFolder, { debounceMs: 1e9 });
  const aggregates: Aggregate[] = [];
  const perRun: Array<Omit<RunReport, 'requestsDetail' | 'workingSet'> & { window: number; workingSet: object }> = [];
  let tallySecondsAt128k = 0;
  for (const window of WINDOWS) {
    const reports: RunReport[] = [];
    const seconds = new Map<string, number>();
    for (const policy of POLICIES) {
      const started = Date.now();
      for (const t of transcripts) {
        reports.push(await replayRun({ label: t.meta.source, messages: t.messages, policy, store, counter, contextWindow: window, maxOutputTokens: Math.min(8_192, Math.floor(window / 8)), finalChangePaths: finalChangePathsOf(t.meta) }));
      }
      seconds.set(policy.name, (Date.now() - started) / 1000);
    }
    if (seconds.has('tally') && window === 128_000) tallySecondsAt128k = seconds.get('tally')!;
    for (const total of totalsByPolicy(reports)) {
      const runs = reports.filter((r) => r.policy === total.policy);
      aggregates.push({
        ...total,
        window,
        runsWithViolations: runs.filter((r) => r.violations.overWindow + r.violations.brokenPairs > 0).length,
        peakTokens: Math.max(...runs.map((r) => r.peakRequestTokens)),
        prefixReuse: total.published.cacheReadShare,
        meanPrefixReuse: runs.reduce((sum, r) => sum + r.meanPrefixReuse, 0) / runs.length,
        retentionOverall: overall(total.retention),
        seconds: seconds.get(total.policy) ?? 0,
      });
    }
    for (const { requestsDetail: _detail, retention: runRetention, workingSet, ...rest } of reports) {
      // Each share on one line: "last 3: 8 of 9 kept, all 3 after 2 compactions".
      const flat = (shares: typeof workingSet.results) => shares.map((s) => `last ${s.depth}: ${s.present} of ${s.due} kept, all ${s.depth} after ${s.compactionsAllKept} compactions`);
      perRun.push({ ...rest, window, retention: { ...runRetention, lost: runRetention.lost.slice(0, 20) }, workingSet: { ...workingSet, results: flat(workingSet.results), assistant: flat(workingSet.assistant) } });
    }
  }
  await store.close();
  rmSync(storeFolder, { recursive: true, force: true });

  for (const window of WINDOWS) {
    const rows = aggregates.filter((a) => a.window === window);
    const none = rows.find((r) => r.policy === 'none')!;
    console.log(`\nwindow ${window.toLocaleString('en-US')} — ${transcripts.length} runs${HALF ? ` (half ${HALF} of ${all.length})` : ''}`);
    console.log('policy               violations  peak      cumulative input  vs none   prefix reuse  effective cost  re-read   cost + re-read  compactions  seconds');
    for (const r of rows) {
      console.log(
        `${r.policy.padEnd(20)} ${String(r.violations).padStart(10)}  ${r.peakTokens.toLocaleString('en-US').padStart(8)}  ${r.cumulativeInputTokens.toLocaleString('en-US').padStart(16)}  ${`${(((r.cumulativeInputTokens - none.cumulativeInputTokens) / none.cumulativeInputTokens) * 100).toFixed(1)}%`.padStart(7)}  ${`${(r.prefixReuse * 100).toFixed(1)}%`.padStart(12)}  ${n(r.effectiveCost).padStart(14)}  ${n(r.workingSet.reReadTokens).padStart(7)}  ${n(r.effectiveCostWithReRead).padStart(14)}  ${String(r.compactions).padStart(11)}  ${r.seconds.toFixed(1).padStart(7)}`,
      );
    }
    console.log(`retention after the first compaction — ${FACT_KINDS.map((k) => FACT_LABELS[k]).join(' | ')} | all`);
    for (const r of rows) {
      console.log(`${r.policy.padEnd(20)} ${FACT_KINDS.map((k) => retentionShare(r.retention[k]).padStart(8)).join('  ')}  ${`${(r.retentionOverall * 100).toFixed(1)}%`.padStart(7)}`);
    }
    console.log('working set at each compaction — results kept 1 / 3 / 5 | compactions after which all of the last 3 were kept | assistant messages kept 1 / 3 / 5');
    for (const r of rows) {
      const w = r.workingSet;
      console.log(`${r.policy.padEnd(20)} ${workingSetShares(w.results, w.compactions).padStart(22)}  ${share(w.results[1].compactionsAllKept, w.compactions).padStart(8)}  ${workingSetShares(w.assistant, w.compactions).padStart(22)}`);
    }
    console.log('as published work reports it — cost vs none | input vs none | peak cut (mean per run) | read from cache');
    for (const r of rows) {
      const p = r.published;
      console.log(`${r.policy.padEnd(20)} ${(p.costVsNone?.toFixed(2) ?? 'n/a').padStart(6)}  ${(p.inputVsNone?.toFixed(2) ?? 'n/a').padStart(6)}  ${(p.peakCut === undefined ? 'n/a' : `${(p.peakCut * 100).toFixed(1)}%`).padStart(7)}  ${`${(p.cacheReadShare * 100).toFixed(1)}%`.padStart(7)}`);
    }
  }
  if (WINDOWS.includes(128_000)) console.log(`\nreplaying the ${transcripts.length} runs with Tally's chain at 128K took ${tallySecondsAt128k.toFixed(1)} s`);
  if (WINDOWS.join() !== ALL_WINDOWS.join() || HALF !== undefined || TARGETS.length) return;
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
