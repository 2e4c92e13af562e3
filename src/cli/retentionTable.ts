import { FACT_KINDS, FACT_LABELS } from '../core/replay/facts';
import type { RunReport } from '../core/replay/replay';
import { addRetention, emptyRetention, retentionShare, type KindRetention } from '../core/replay/retention';
import type { FactKind } from '../core/replay/facts';
import { formatTable, percent } from './table';

export interface PolicyTotal {
  policy: string;
  runs: number;
  cumulativeInputTokens: number;
  effectiveCost: number;
  violations: number;
  retention: Record<FactKind, KindRetention>;
}

/** Sums runs per policy, in the order the policies were run. */
export function totalsByPolicy(reports: readonly RunReport[]): PolicyTotal[] {
  const totals = new Map<string, PolicyTotal>();
  for (const r of reports) {
    let t = totals.get(r.policy);
    if (!t) totals.set(r.policy, (t = { policy: r.policy, runs: 0, cumulativeInputTokens: 0, effectiveCost: 0, violations: 0, retention: emptyRetention() }));
    t.runs++;
    t.cumulativeInputTokens += r.cumulativeInputTokens;
    t.effectiveCost += r.effectiveCost;
    t.violations += r.violations.overWindow + r.violations.brokenPairs;
    addRetention(t.retention, r.retention.kinds);
  }
  return [...totals.values()];
}

const retentionCells = (kinds: Record<FactKind, KindRetention>) => FACT_KINDS.map((k) => retentionShare(kinds[k]));
const HEADERS = FACT_KINDS.map((k) => FACT_LABELS[k]);

/** Per run, then per policy in total: the share of due facts still present after the first compaction. */
export function formatRuns(reports: readonly RunReport[]): string {
  const rows = reports.map((r) => [
    r.label,
    r.policy,
    r.requests,
    r.peakRequestTokens,
    r.cumulativeInputTokens,
    percent(r.prefixReuse),
    Math.round(r.effectiveCost),
    r.compactions,
    r.violations.overWindow + r.violations.brokenPairs,
    ...retentionCells(r.retention.kinds),
  ]);
  const runs = formatTable(['run', 'strategy', 'requests', 'peak', 'cumulative input', 'prefix reuse', 'effective cost', 'compactions', 'violations', ...HEADERS], rows);
  const totals = totalsByPolicy(reports).map((t) => [t.policy, t.runs, t.cumulativeInputTokens, Math.round(t.effectiveCost), t.violations, ...retentionCells(t.retention)]);
  return `${runs}\n\nIn total (facts kept in the requests after each run's first compaction; n/a: the format does not record it; —: nothing was due)\n${formatTable(['strategy', 'runs', 'cumulative input', 'effective cost', 'violations', ...HEADERS], totals)}`;
}
