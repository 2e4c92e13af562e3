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
