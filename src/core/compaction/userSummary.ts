import type { ContextBudget } from '../accounting/budget';
import type { Message } from '../model/message';
import type { Summarizer } from './types';

/** The summary the user confirmed in the preview, with the one Tally proposed there. */
export interface UserSummary {
  /** What replaces the history: the user's text, edited or not. */
  text: string;
  /** The summary the preview showed before the user touched it. */
  proposed: string;
}

/**
 * A summarizer whose checkpoint is the user's text: the history is replaced by exactly what the
 * user confirmed, not by a fresh (and possibly different) model summary. Tool digests and episode
 * summaries, which the preview does not show, still come from the real summarizer.
 */
export function summarizerUsing(summary: UserSummary, summarizer: Summarizer): Summarizer {
  return {
    name: summarizer.name,
    summarize: (request) => (request.style === 'checkpoint' ? Promise.resolve(summary.text) : summarizer.summarize(request)),
  };
}

/** The record's fields for the summary: the original is kept only when the user changed it. */
export function summaryFields(summary: string | undefined, user: UserSummary | undefined): { summary?: string; originalSummary?: string } {
  if (summary === undefined) return {};
  return user && user.text !== user.proposed ? { summary, originalSummary: user.proposed } : { summary };
}

/**
 * The working context a preview produced, with the user's text in place of the summary it
 * proposed: what a confirm with that text leaves, so it can be counted before the user confirms.
 */
export function withUserSummary(messages: readonly Message[], summary: UserSummary): Message[] {
  let replaced = false;
  const out = messages.map((m) => {
    if (replaced || m.kind !== 'summary' || !m.content.endsWith(summary.proposed)) return m;
    replaced = true;
    // A copy without the count of the proposed text: it is counted again with the user's.
    const { tokens: _tokens, tokenEncoding: _encoding, ...rest } = m;
    return { ...rest, content: m.content.slice(0, m.content.length - summary.proposed.length) + summary.text };
  });
  if (!replaced) throw new Error('this preview wrote no summary to edit; preview the compaction again');
  return out;
}

/** A preview's after-figures with the user's summary in it, measured as the meter measures the context. */
export function editedPreviewFigures(messages: readonly Message[], summary: UserSummary, measure: (working: readonly Message[]) => ContextBudget): { tokensAfter: number; estimatedTokensAfter: number } {
  const budget = measure(withUserSummary(messages, summary));
  return { tokensAfter: budget.used, estimatedTokensAfter: budget.estimatedTotal };
}
