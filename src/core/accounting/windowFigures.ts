/**
 * The one definition of the numbers every surface shows about the context window: the status bar,
 * the chat meter, the inspector header and bar markers, and command messages. The host computes
 * them once from the budget and sends them; each surface shows these values and these texts, so
 * two surfaces can never disagree or use different denominators.
 *
 *   effective window     = context window − tokens reserved for the model's reply
 *   used (context now)   = tokens the next request would carry now (system, skills, tool schemas,
 *                          conversation), on the provider's reported basis once it reported one
 *   estimated            = the same request counted by Tally's tokenizer alone; shown beside `used`
 *                          wherever the two differ, never instead of it
 *   last request         = what the request sent last carried: the provider's count when it reported
 *                          one (else the estimate), with the estimate beside it
 *   compaction threshold = ⌊effective window × compaction trigger⌋
 *   block threshold      = ⌊effective window × hard block⌋
 *
 * Every share is a share of the effective window.
 */
import type { ComponentTokens } from '../model/records';
import type { ContextBudget } from './budget';

export interface WindowFigures {
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Tokens reserved for the model's reply. */
  outputReserve: number;
  /** contextWindow − outputReserve: the denominator of every share below. */
  effectiveWindow: number;
  /** Tokens the next request would carry now. */
  used: number;
  /** used ÷ effectiveWindow. */
  usedShare: number;
  /** Where `used` comes from: Tally's tokenizer alone, or the provider's last report plus what changed since. */
  basis: 'estimate' | 'reported';
  /** The next request counted by Tally's tokenizer alone (equals `used` on the estimate basis). */
  estimated: number;
  components: ComponentTokens;
  compactAt: number;
  /** compactAt ÷ effectiveWindow (the tally.compaction.trigger setting). */
  compactShare: number;
  blockAt: number;
  /** blockAt ÷ effectiveWindow (the tally.compaction.block setting). */
  blockShare: number;
  /** The request sent last: its input tokens (the provider's count when it reported one). */
  lastRequest?: LastRequestFigures;
  /** Set when the model's window is unknown and 128K is assumed. */
  warning?: string;
  /** The same figures in words, so every surface says them the same way. */
  text: WindowFigureTexts;
}

export interface WindowFigureTexts {
  /** "3,612 of 119,808 tokens (3% of the effective window)" */
  used: string;
  /** "119,808 tokens = 128,000-token window − 8,192 reserved for output" */
  effectiveWindow: string;
  /** "113,817 tokens = 95% of the effective window (119,808)" */
  compactAt: string;
  /** "117,411 tokens = 98% of the effective window (119,808)" */
  blockAt: string;
  /** "last request 13,096 · context now 3,612", or "context now 3,612" before any request. */
  lastAndNow: string;
  /** "Tally's estimate 3,458" when `used` is on the reported basis and the estimate differs; absent otherwise. */
  estimate?: string;
  /** "13,096 tokens (Tally's estimate 12,900)": the last request's figure with its estimate beside it when they differ. */
  lastRequest?: string;
}

/** What a request that was sent carried. */
export interface LastRequestFigures {
  requestIndex: number;
  /** The provider's count when it reported one, else Tally's estimate: the figure every surface shows. */
  tokens: number;
  /** Tally's estimate of the same request. */
  estimated: number;
  /** The provider's count, when it reported one. */
  reported?: number;
}

/** A request's figure the way every surface shows it: what the provider reported (else the estimate), with the estimate beside it when they differ. */
export function requestFigures(requestIndex: number, estimated: number, reported?: number): LastRequestFigures {
  return { requestIndex, tokens: reported ?? estimated, estimated, reported };
}

/** "3,085 tokens (Tally's estimate 2,931)" when the shown figure and the estimate differ, "3,085 tokens" otherwise. */
export function tokensWithEstimate(shown: number, estimated: number | undefined): string {
  const main = `${formatTokens(shown)} tokens`;
  return estimated === undefined || Math.round(estimated) === Math.round(shown) ? main : `${main} (Tally's estimate ${formatTokens(estimated)})`;
}

export function formatTokens(n: number): string {
  // Grouped by hand: the first toLocaleString of a process loads the locale data (about 10 ms, on the window's open).
  const rounded = Math.round(n);
  if (!Number.isSafeInteger(rounded)) return rounded.toLocaleString('en-US');
  const digits = String(Math.abs(rounded));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
  return rounded < 0 || Object.is(rounded, -0) ? `-${grouped}` : grouped;
}

/** A compaction's figures: before and after, on the meter's basis, with the estimate beside them where they differ. */
export interface CompactionFigures {
  tokensBefore: number;
  tokensAfter: number;
  estimatedTokensBefore?: number;
  estimatedTokensAfter?: number;
}

/** "Tally's estimate 2,931 → 1,631" when the estimate differs from the figures; undefined for a record kept before the estimates were, or where they agree. */
export function compactionEstimate(c: CompactionFigures): string | undefined {
  const { estimatedTokensBefore: before, estimatedTokensAfter: after } = c;
  if (before === undefined || after === undefined || (Math.round(before) === Math.round(c.tokensBefore) && Math.round(after) === Math.round(c.tokensAfter))) return undefined;
  return `Tally's estimate ${formatTokens(before)} → ${formatTokens(after)}`;
}

/** "3,085 → 1,785 tokens (Tally's estimate 2,931 → 1,631)", the estimate only where it differs. */
export function compactionDelta(c: CompactionFigures): string {
  const estimate = compactionEstimate(c);
  const main = `${formatTokens(c.tokensBefore)} → ${formatTokens(c.tokensAfter)} tokens`;
  return estimate ? `${main} (${estimate})` : main;
}

/** What a compaction saved, with the estimate's saving beside it where it differs: "1,300 tokens (Tally's estimate 1,268)". */
export function compactionSaved(c: CompactionFigures): string {
  const saved = c.tokensBefore - c.tokensAfter;
  const estimated = c.estimatedTokensBefore !== undefined && c.estimatedTokensAfter !== undefined ? c.estimatedTokensBefore - c.estimatedTokensAfter : undefined;
  return tokensWithEstimate(saved, estimated);
}

/** A share as a percentage with one decimal, a trailing ".0" dropped: 95%, 2.5%; "<0.1%" for a small share that is not none. */
export function formatShare(share: number): string {
  if (!Number.isFinite(share)) return '—';
  if (share > 0 && share < 0.0005) return '<0.1%';
  return `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

/** The figures of a budget; `lastRequest` from the last usage record, when there is one. */
export function windowFigures(budget: ContextBudget, lastRequest?: LastRequestFigures | { requestIndex: number; tokens: number }): WindowFigures {
  const effectiveWindow = budget.effectiveWindow;
  const share = (n: number) => (effectiveWindow > 0 ? n / effectiveWindow : 0);
  const used = budget.used;
  const compactAt = budget.compactAtTokens;
  const blockAt = budget.blockAtTokens;
  const ofEffective = (n: number) => `${formatTokens(n)} tokens = ${formatShare(share(n))} of the effective window (${formatTokens(effectiveWindow)})`;
  const now = `context now ${formatTokens(used)}`;
  // Budgets built by hand (tests, replays) may not say what the tokenizer alone counted: then it is `used`.
  const estimated = budget.basis === 'reported' && budget.estimatedTotal > 0 ? budget.estimatedTotal : used;
  const last = lastRequest && ('estimated' in lastRequest ? lastRequest : requestFigures(lastRequest.requestIndex, lastRequest.tokens));
  return {
    contextWindow: budget.contextWindow,
    outputReserve: budget.maxOutputTokens,
    effectiveWindow,
    used,
    usedShare: share(used),
    basis: budget.basis,
    estimated,
    components: { ...budget.components },
    compactAt,
    compactShare: share(compactAt),
    blockAt,
    blockShare: share(blockAt),
    lastRequest: last,
    warning: budget.windowIsFallback ? budget.warning : undefined,
    text: {
      used: `${formatTokens(used)} of ${formatTokens(effectiveWindow)} tokens (${formatShare(share(used))} of the effective window)`,
      effectiveWindow: `${formatTokens(effectiveWindow)} tokens = ${formatTokens(budget.contextWindow)}-token window − ${formatTokens(budget.maxOutputTokens)} reserved for output`,
      compactAt: ofEffective(compactAt),
      blockAt: ofEffective(blockAt),
      lastAndNow: last ? `last request ${formatTokens(last.tokens)} · ${now}` : now,
      estimate: estimated !== used ? `Tally's estimate ${formatTokens(estimated)}` : undefined,
      lastRequest: last ? tokensWithEstimate(last.tokens, last.estimated) : undefined,
    },
  };
}
