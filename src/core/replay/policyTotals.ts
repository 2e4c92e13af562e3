import type { FactKind } from './facts';
import type { RunReport } from './replay';
import { addRetention, emptyRetention, type KindRetention } from './retention';
import { addWorkingSet, emptyWorkingSet, type WorkingSetReport } from './workingSet';

/**
 * The figures published work reports, so Tally's can be set beside theirs: cost against no
 * management (observation masking came to about half in "The Complexity Trap"), the cut in peak
 * tokens (26–54% in ACON) and the share of input read from the prompt cache. Undefined where
 * the runs were not also replayed without management.
 */
export interface PublishedFigures {
  /** Effective cost ÷ the same runs' effective cost with no management. */
  costVsNone?: number;
  /** Cumulative input ÷ the same runs' cumulative input with no management (no cache pricing). */
  inputVsNone?: number;
  /** Mean over runs of 1 − peak request ÷ the run's peak with no management. */
  peakCut?: number;
  /** Share of all input tokens that repeat the previous request's prefix (read from cache). */
  cacheReadShare: number;
}

/** One policy's runs added up. */
export interface PolicyTotal {
  policy: string;
  runs: number;
  cumulativeInputTokens: number;
  effectiveCost: number;
  /** The effective cost with the re-read estimate added. */
  effectiveCostWithReRead: number;
  violations: number;
  compactions: number;
  retention: Record<FactKind, KindRetention>;
  workingSet: WorkingSetReport;
  published: PublishedFigures;
}

/** Sums runs per policy, in the order the policies were run; published figures against the `none` runs of the same labels. */
export function totalsByPolicy(reports: readonly RunReport[]): PolicyTotal[] {
  const totals = new Map<string, PolicyTotal & { reused: number; peakCuts: number[]; noneCost: number; noneInput: number; allMatched: boolean }>();
  const none = new Map(reports.filter((r) => r.policy === 'none').map((r) => [r.label, r]));
  for (const r of reports) {
    let t = totals.get(r.policy);
    if (!t) {
      t = { policy: r.policy, runs: 0, cumulativeInputTokens: 0, effectiveCost: 0, effectiveCostWithReRead: 0, violations: 0, compactions: 0, retention: emptyRetention(), workingSet: emptyWorkingSet(), published: { cacheReadShare: 0 }, reused: 0, peakCuts: [], noneCost: 0, noneInput: 0, allMatched: true };
      totals.set(r.policy, t);
    }
    t.runs++;
    t.cumulativeInputTokens += r.cumulativeInputTokens;
    t.effectiveCost += r.effectiveCost;
    t.effectiveCostWithReRead += r.effectiveCostWithReRead;
    t.violations += r.violations.overWindow + r.violations.brokenPairs;
    t.compactions += r.compactions;
    t.reused += r.prefixReuse * r.cumulativeInputTokens;
    addRetention(t.retention, r.retention.kinds);
    addWorkingSet(t.workingSet, r.workingSet);
    const base = none.get(r.label);
    if (!base) t.allMatched = false;
    else {
      t.noneCost += base.effectiveCost;
      t.noneInput += base.cumulativeInputTokens;
      if (base.peakRequestTokens > 0) t.peakCuts.push(1 - r.peakRequestTokens / base.peakRequestTokens);
    }
  }
  return [...totals.values()].map(({ reused, peakCuts, noneCost, noneInput, allMatched, ...t }) => {
    const published: PublishedFigures = { cacheReadShare: t.cumulativeInputTokens ? reused / t.cumulativeInputTokens : 0 };
    if (allMatched && noneCost > 0) {
      published.costVsNone = t.effectiveCost / noneCost;
      published.inputVsNone = t.cumulativeInputTokens / noneInput;
      published.peakCut = peakCuts.reduce((n, c) => n + c, 0) / peakCuts.length;
    }
    return { ...t, published };
  });
}
