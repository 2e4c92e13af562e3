/**
 * The one definition of the numbers every surface shows about the context window: the status bar,
 * the chat meter, the inspector header and bar markers, and command messages. The host computes
 * them once from the budget and sends them; each surface shows these values and these texts, so
 * two surfaces can never disagree or use different denominators.
 *
 *   effective window     = context window − tokens reserved for the model's reply
 *   used                 = tokens the next request would carry now (system, skills, tool schemas,
 *                          conversation), on the provider's reported basis once it reported one
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
  components: ComponentTokens;
  compactAt: number;
  /** compactAt ÷ effectiveWindow (the tally.compaction.trigger setting). */
  compactShare: number;
  blockAt: number;
  /** blockAt ÷ effectiveWindow (the tally.compaction.block setting). */
  blockShare: number;
  /** The request sent last: its input tokens (the provider's count when it reported one). */
  lastRequest?: { requestIndex: number; tokens: number };
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

/** A share as a percentage with one decimal, a trailing ".0" dropped: 95%, 2.5%; "<0.1%" for a small share that is not none. */
export function formatShare(share: number): string {
  if (!Number.isFinite(share)) return '—';
  if (share > 0 && share < 0.0005) return '<0.1%';
  return `${(share * 100).toFixed(1).replace(/\.0$/, '')}%`;
}

/** The figures of a budget; `lastRequest` from the last usage record, when there is one. */
export function windowFigures(budget: ContextBudget, lastRequest?: { requestIndex: number; tokens: number }): WindowFigures {
  const effectiveWindow = budget.effectiveWindow;
  const share = (n: number) => (effectiveWindow > 0 ? n / effectiveWindow : 0);
  const used = budget.used;
  const compactAt = budget.compactAtTokens;
  const blockAt = budget.blockAtTokens;
  const ofEffective = (n: number) => `${formatTokens(n)} tokens = ${formatShare(share(n))} of the effective window (${formatTokens(effectiveWindow)})`;
  const now = `context now ${formatTokens(used)}`;
  return {
    contextWindow: budget.contextWindow,
    outputReserve: budget.maxOutputTokens,
    effectiveWindow,
    used,
    usedShare: share(used),
    basis: budget.basis,
    components: { ...budget.components },
    compactAt,
    compactShare: share(compactAt),
    blockAt,
    blockShare: share(blockAt),
    lastRequest,
    warning: budget.windowIsFallback ? budget.warning : undefined,
    text: {
      used: `${formatTokens(used)} of ${formatTokens(effectiveWindow)} tokens (${formatShare(share(used))} of the effective window)`,
      effectiveWindow: `${formatTokens(effectiveWindow)} tokens = ${formatTokens(budget.contextWindow)}-token window − ${formatTokens(budget.maxOutputTokens)} reserved for output`,
      compactAt: ofEffective(compactAt),
      blockAt: ofEffective(blockAt),
      lastAndNow: lastRequest ? `last request ${formatTokens(lastRequest.tokens)} · ${now}` : now,
    },
  };
}
