import type { Message } from '../model/message';
import { summarizeLocally } from './localSummarizer';
import { extractFactsInSlices } from './sessionFacts';
import { CHECKPOINT_HEADINGS, checkModelSummary } from './summaryCheck';
import { withoutDemonstrations } from './taskText';
import type { Summarizer, SummaryRequest } from './types';

/** Sends one prompt to a model and returns its text (the agent layer adapts a provider to this). */
export type CompleteText = (prompt: { system: string; user: string; maxTokens: number; signal?: AbortSignal }) => Promise<string>;

const SYSTEM = [
  'You write checkpoints of a coding agent session so the agent can continue after older messages are removed.',
  `Write where the work stands, not a log, under these headings: ${CHECKPOINT_HEADINGS.join(', ')}.`,
  'Task: the task being solved, as the user stated it (not a worked example or demonstration a first message may carry). Established: facts and conclusions, each with where it was learned. Changed: the files changed and whether a check ran after. Failed: what failed and why. Open questions. Next step: one concrete action.',
  'Give commands whole, as written, with their outcome. Keep verbatim: changed file paths, the latest error line and where it happened, line numbers, counts, versions, error codes, and every read_result ref_id, each with what its output holds.',
  'When the messages include an earlier checkpoint, merge it into this one: say each fact once.',
  'Never invent facts. Do not address the user.',
].join('\n');

/** A user message without the worked demonstration of another task it may carry, saying it was left out. */
function userWordsForSummary(text: string): string {
  const rest = withoutDemonstrations(text);
  return rest.length === text.trim().length ? text : `[a worked demonstration of another task, ${(text.length - rest.length).toLocaleString('en-US')} characters, left out]\n${rest}`;
}

/** Renders messages as plain text for the summarization prompt, bounded in size. */
export function renderForSummary(messages: readonly Message[], maxChars: number): string {
  // Newest first, and only as far back as the bound reaches: the text keeps its last `maxChars`
  // characters, so older messages (tens of thousands after a long session) are never rendered.
  const parts: string[] = [];
  let chars = 0;
  for (let i = messages.length - 1; i >= 0 && chars <= maxChars; i--) {
    const m = messages[i];
    const calls = (m.toolCalls ?? []).map((c) => `  → ${c.name}(${c.arguments.slice(0, 400)})`).join('\n');
    const content = m.role === 'user' && m.kind === 'user' ? userWordsForSummary(m.content) : m.content;
    const body = content.length > 2000 ? `${content.slice(0, 1400)}\n[…]\n${content.slice(-500)}` : content;
    const part = `[${m.role}${m.toolName ? `:${m.toolName}` : ''}${m.kind !== m.role ? ` ${m.kind}` : ''}]\n${body}${calls ? `\n${calls}` : ''}`;
    parts.push(part);
    chars += part.length + 2;
  }
  const omitted = parts.length < messages.length;
  let text = parts.reverse().join('\n\n');
  if (omitted && text.length <= maxChars) text = `\n\n${text}`; // what the whole text's end would hold
  if (text.length > maxChars) text = `[… earlier part omitted …]\n${text.slice(text.length - maxChars)}`;
  return text;
}

/**
 * Summaries from a model (optionally a cheaper one than the chat model), falling back to the
 * deterministic local summarizer when the model fails, so compaction never stalls on it. What the
 * model returns is checked against the summary's shape and the facts it must keep; what the check
 * or the fallback did is told through `onNote`, never written into the summary.
 */
export class LlmSummarizer implements Summarizer {
  readonly name: string;
  lastError?: string;

  constructor(private readonly complete: CompleteText, modelName: string, private readonly inputChars = 120_000) {
    this.name = `llm:${modelName}`;
  }

  async summarize(request: SummaryRequest): Promise<string> {
    const instruction =
      request.style === 'tool_digest'
        ? 'Summarize these tool calls and results in a compact list: what was run or read, and what it showed.'
        : request.style === 'episode'
          ? 'Summarize this completed part of the session: what was asked, what was done, the outcome.'
          : 'Write a checkpoint of this part of the session.';
    const user = [
      instruction,
      request.focus ? `Pay particular attention to: ${request.focus}` : '',
      request.instructions ? `The user's hooks ask this summary to keep in mind:\n${request.instructions}` : '',
      `Stay under ${request.maxTokens} tokens.`,
      '',
      renderForSummary(request.messages, this.inputChars),
    ].filter(Boolean).join('\n');
    try {
      const text = (await this.complete({ system: SYSTEM, user, maxTokens: request.maxTokens, signal: request.signal })).trim();
      if (!text) throw new Error('the model returned an empty summary');
      this.lastError = undefined;
      // Checked before it replaces history: completed from the messages, or replaced when it falls short.
      const checked = checkModelSummary(text, request, await extractFactsInSlices(request.messages));
      if (checked.note) request.onNote?.(checked.note);
      return checked.text;
    } catch (error) {
      if (request.signal?.aborted) throw error;
      this.lastError = error instanceof Error ? error.message : String(error);
      request.onNote?.(`model summary failed: ${this.lastError}; local summary used`);
      return summarizeLocally(request.messages, request, await extractFactsInSlices(request.messages));
    }
  }
}
