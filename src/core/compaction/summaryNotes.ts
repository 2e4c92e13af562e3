import type { Summarizer } from './types';

/**
 * The same summarizer, keeping every note it tells (a model's summary completed or replaced, a
 * model that failed) in `notes`, so the compaction's record can show them to the user while the
 * summaries the model reads stay free of them.
 */
export function summarizerNoting(summarizer: Summarizer, notes: string[]): Summarizer {
  return {
    name: summarizer.name,
    summarize: (request) =>
      summarizer.summarize({
        ...request,
        onNote: (note) => {
          notes.push(note);
          request.onNote?.(note);
        },
      }),
  };
}
