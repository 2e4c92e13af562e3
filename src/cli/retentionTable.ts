import { FACT_KINDS, FACT_LABELS } from '../core/replay/facts';
import type { RunReport } from '../core/replay/replay';
import { retentionShare, type KindRetention } from '../core/replay/retention';
import type { FactKind } from '../core/replay/facts';
import { totalsByPolicy } from '../core/replay/policyTotals';
import { workingSetShares, type WorkingSetReport } from '../core/replay/workingSet';
import { formatTable, percent } from './table';

export { totalsByPolicy, type PolicyTotal } from '../core/replay/policyTotals';

const retentionCells = (kinds: Record<FactKind, KindRetention>) => FACT_KINDS.map((k) => retentionShare(kinds[k]));
const workingSetCells = (w: WorkingSetReport) => [workingSetShares(w.results, w.compactions), workingSetShares(w.assistant, w.compactions)];
const HEADERS = [...FACT_KINDS.map((k) => FACT_LABELS[k]), 'working set: results 1/3/5', 'assistant 1/3/5'];
const optionalPercent = (value: number | undefined) => (value === undefined ? 'n/a' : percent(value));
const ratio = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(2));

/**
 * Per run, then per policy in total: cost as replayed and with the re-read estimate, the share of
 * due facts still present after the first compaction, and the working set each compaction kept.
 */
export function formatRuns(reports: readonly RunReport[]): string {
  const rows = reports.map((r) => [
    r.label,
    r.policy,
    r.requests,
    r.peakRequestTokens,
    r.cumulativeInputTokens,
    percent(r.prefixReuse),
    Math.round(r.effectiveCost),
    r.workingSet.reReadTokens,
    Math.round(r.effectiveCostWithReRead),
    r.compactions,
    r.violations.overWindow + r.violations.brokenPairs,
    ...retentionCells(r.retention.kinds),
    ...workingSetCells(r.workingSet),
  ]);
  const runs = formatTable(['run', 'strategy', 'requests', 'peak', 'cumulative input', 'prefix reuse', 'effective cost', 're-read', 'cost + re-read', 'compactions', 'violations', ...HEADERS], rows);
  const totals = totalsByPolicy(reports);
  const totalRows = totals.map((t) => [
    t.policy,
    t.runs,
    t.cumulativeInputTokens,
    Math.round(t.effectiveCost),
    t.workingSet.reReadTokens,
    Math.round(t.effectiveCostWithReRead),
    t.violations,
    ...retentionCells(t.retention),
    ...workingSetCells(t.workingSet),
  ]);
  const published = totals.map((t) => [t.policy, ratio(t.published.costVsNone), ratio(t.published.inputVsNone), optionalPercent(t.published.peakCut), percent(t.published.cacheReadShare)]);
  return [
    runs,
    '',
    "In total (facts kept in the requests after each run's first compaction; n/a: the format does not record it; —: nothing was due).",
    'Working set: of the last 1, 3 and 5 whole tool results (and assistant messages) before each compaction, the share the next request carried whole.',
    'Re-read: the tokens of the working-set results (the last five) compactions removed, which a live agent would read again; cost + re-read adds them as new input (1.25×).',
    formatTable(['strategy', 'runs', 'cumulative input', 'effective cost', 're-read', 'cost + re-read', 'violations', ...HEADERS], totalRows),
    '',
    'As published work reports it (against the same runs with no management; n/a: not replayed with --strategy none):',
    formatTable(['strategy', 'cost vs none', 'input vs none', 'peak cut', 'read from cache'], published),
  ].join('\n');
}
