import type { Message } from '../model/message';
import { extractFacts, type SessionFacts } from './sessionFacts';
import { storedOutputsLine } from './strategies/storeReplaced';
import type { Summarizer, SummaryRequest } from './types';

const CHARS_PER_TOKEN = 4;

/**
 * A deterministic, offline summarizer: a structured checkpoint built from what the messages
 * show (task, files, commands and outcomes, errors, decisions, next step). Used when no model
 * is configured for summaries and as the fallback when the model fails.
 */
export class LocalSummarizer implements Summarizer {
  readonly name = 'local';

  async summarize(request: SummaryRequest): Promise<string> {
    return summarizeLocally(request.messages, request);
  }
}

export function summarizeLocally(messages: readonly Message[], request: Pick<SummaryRequest, 'focus' | 'maxTokens' | 'style'>): string {
  const facts = extractFacts(messages);
  const budgetChars = Math.max(200, request.maxTokens * CHARS_PER_TOKEN);
  // Shrink list lengths until the rendering fits the budget.
  for (const cap of [12, 8, 5, 3, 2, 1, 0]) {
    const text = render(facts, messages.length, request, cap);
    if (text.length <= budgetChars || cap === 0) return text.length <= budgetChars ? text : text.slice(0, budgetChars - 1) + '…';
  }
  return '';
}

function list(items: string[], cap: number): string[] {
  if (cap <= 0 || items.length === 0) return [];
  const shown = items.slice(-cap);
  const more = items.length - shown.length;
  return [...shown.map((item) => `- ${item}`), ...(more > 0 ? [`- (${more} more earlier)`] : [])];
}

/**
 * The summary has a fixed shape: what must never be lost comes first (task, files changed, the
 * latest error and where it happened, the last commands whose results the work rests on and
 * their outcome, the refs of stored outputs), then what helps (commands, errors, decisions), so a
 * tight budget cuts the helpful part, not the essential one.
 */
function render(facts: SessionFacts, count: number, request: Pick<SummaryRequest, 'focus' | 'style'>, cap: number): string {
  const lines: string[] = [];
  const changed = facts.filesChanged.length ? `Changed: ${facts.filesChanged.join(', ')}` : '';
  const read = facts.filesRead.length && cap > 0 ? `Read: ${facts.filesRead.slice(-cap * 3).join(', ')}` : '';
  const latestError = facts.latestError ? `### Latest error\n${facts.latestError}${facts.latestErrorLocation ? `\nAt: ${facts.latestErrorLocation}` : ''}` : '';
  const lastCommands = lastCommandsSection(facts);
  const refs = storedOutputsLine(facts.storedRefs);
  if (request.style === 'tool_digest') {
    lines.push(`[Digest of ${facts.toolCallCount} earlier tool call${facts.toolCallCount === 1 ? '' : 's'}; full outputs stay in the transcript]`);
    if (request.focus) lines.push(`Focus requested: ${request.focus}`);
    lines.push(...[changed, read, latestError, lastCommands].filter(Boolean));
    lines.push(...list(facts.commands.map((c) => `\`${c.command}\` → ${c.outcome}`), cap * 2));
    lines.push(...list(facts.errors, cap));
    return lines.join('\n');
  }
  const heading = request.style === 'episode' ? 'Episode summary' : 'Checkpoint';
  lines.push(`## ${heading} (local summary of ${count} message${count === 1 ? '' : 's'})`);
  if (request.focus) lines.push(`Focus requested: ${request.focus}`);
  if (facts.task) lines.push(`### Task\n${facts.task}`);
  if (facts.latestRequest && facts.latestRequest !== facts.task?.slice(0, facts.latestRequest.length)) {
    lines.push(`### Latest request\n${facts.latestRequest}`);
  }
  if (changed || read) lines.push('### Files touched', ...[changed, read].filter(Boolean).map((l) => `- ${l.charAt(0).toLowerCase()}${l.slice(1)}`));
  if (latestError) lines.push(latestError);
  if (lastCommands) lines.push(lastCommands);
  if (refs) lines.push(refs);
  lines.push(`### Next step\n${facts.nextStep ?? 'continue with the latest request'}`);
  const earlier = earlierCheckpointLines(facts.earlierSummaries, lines, cap);
  if (earlier.length) lines.push('### Earlier checkpoints', ...earlier);
  const commands = list(facts.commands.map((c) => `\`${c.command}\` → ${c.outcome}`), cap);
  if (commands.length) lines.push('### Commands run', ...commands);
  const errors = list(facts.errors, cap);
  if (errors.length) lines.push('### Errors seen', ...errors);
  const decisions = list(facts.decisions, cap);
  if (decisions.length) lines.push('### Decisions and findings', ...decisions);
  return lines.join('\n');
}

/** The commands the work rests on, verbatim: the test or build run last, and the one that last failed. */
export function lastCommandsSection(facts: Pick<SessionFacts, 'lastCheckCommand' | 'latestErrorCommand'>): string {
  const lines: string[] = [];
  const check = facts.lastCheckCommand;
  const failed = facts.latestErrorCommand;
  if (check) lines.push(`- ${failed?.command === check.command ? 'check, latest error' : 'check'}: \`${check.command}\` → ${check.outcome}`);
  if (failed && failed.command !== check?.command) lines.push(`- latest error from: \`${failed.command}\` → ${failed.outcome}`);
  return lines.length ? `### Last commands\n${lines.join('\n')}` : '';
}

/** Sections an earlier checkpoint carries into this one's own (files, latest error, last commands, refs). */
const CARRIED = /^(?:### (?:Files touched|Latest error|Last commands)|- (?:changed|read|check|check, latest error|latest error from): |(?:Changed|Read): |At: |Stored outputs )/;

/**
 * What the last two earlier checkpoints said that this one does not already say: their carried
 * sections are in this one's own, and a line it already has is not repeated (each repeat is
 * re-sent with every request until the next compaction).
 */
function earlierCheckpointLines(summaries: readonly string[], already: readonly string[], cap: number): string[] {
  if (cap <= 0) return [];
  const seen = new Set(already.flatMap((l) => l.split('\n')));
  const out: string[] = [];
  for (const summary of summaries.slice(-2)) {
    let section = '';
    const kept: string[] = [];
    for (const line of summary.split('\n')) {
      if (line.startsWith('## ') || line.startsWith('[') || !line.trim()) continue;
      if (line.startsWith('### ')) section = line;
      if (CARRIED.test(line) || (line.startsWith('### ') && CARRIED.test(line))) continue;
      if (/^### (?:Latest error|Last commands)/.test(section) || seen.has(line)) continue;
      seen.add(line);
      kept.push(line);
    }
    // A heading left with nothing under it goes too.
    const body = kept.filter((l, i) => !l.startsWith('### ') || (kept[i + 1] !== undefined && !kept[i + 1].startsWith('### ')));
    out.push(...body.slice(0, cap * 3));
  }
  return out;
}
