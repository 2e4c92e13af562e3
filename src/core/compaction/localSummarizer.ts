import type { Message } from '../model/message';
import { clip, extractFacts, extractFactsInSlices, nextStepOf, type RunCommand, type SessionFacts } from './sessionFacts';
import { storedOutputsBlock } from './storedOutputs';
import type { Summarizer, SummaryRequest } from './types';

const CHARS_PER_TOKEN = 4;

/**
 * A deterministic, offline summarizer: the state of the work, built from what the messages show
 * (task, what was established and where, what changed and whether a check ran after, what
 * failed and why, open questions, the next step, the stored outputs). Used when no model is
 * configured for summaries and as the fallback when the model fails.
 */
export class LocalSummarizer implements Summarizer {
  readonly name = 'local';

  async summarize(request: SummaryRequest): Promise<string> {
    return summarizeLocally(request.messages, request, await extractFactsInSlices(request.messages));
  }
}

/** How much of the state a rendering lists: items per list, and how many stored outputs keep their description. */
interface Room {
  cap: number;
  described: number;
}

const ROOMS: Room[] = [
  ...[12, 8, 5, 3, 2, 1, 0].map((cap) => ({ cap, described: Infinity })),
  { cap: 0, described: 12 },
  { cap: 0, described: 0 },
];

/** The local summary of `messages` (`facts`: theirs, when read already, e.g. in slices). */
export function summarizeLocally(messages: readonly Message[], request: Pick<SummaryRequest, 'focus' | 'maxTokens' | 'style'>, facts = extractFacts(messages)): string {
  const budgetChars = Math.max(200, request.maxTokens * CHARS_PER_TOKEN);
  // Each room's stored-outputs block made once (tens of thousands of refs after a long session),
  // and a room whose block alone is over the budget not rendered at all.
  const blocks = new Map<number, string>();
  const blockFor = (described: number) => blocks.get(described) ?? blocks.set(described, storedOutputsBlock(facts.refs, described)).get(described)!;
  // Shrink list lengths, then the stored outputs' descriptions, until the rendering fits the budget.
  let text = '';
  for (const [at, room] of ROOMS.entries()) {
    if (at < ROOMS.length - 1 && blockFor(room.described).length > budgetChars) continue;
    text = render(facts, messages.length, request, room, blockFor(room.described));
    if (text.length <= budgetChars) return text;
  }
  return text.slice(0, budgetChars - 1) + '…';
}

function list(items: string[], cap: number): string[] {
  if (cap <= 0 || items.length === 0) return [];
  const shown = items.slice(-cap);
  const more = items.length - shown.length;
  return [...(more > 0 ? [`- (${more} more earlier)`] : []), ...shown.map((item) => `- ${item}`)];
}

/** A command and how it ended: inline when it is one line, else fenced whole below its line. */
function commandLine(label: string, run: RunCommand): string {
  if (!run.command.includes('\n') && !run.command.includes('`')) return `- ${label}: \`${run.command}\` → ${run.outcome}`;
  return `- ${label} → ${run.outcome}\n\`\`\`\n${run.command.replace(/```/g, "'''")}\n\`\`\``;
}

/** The commands the work rests on, whole: the test or build run last, and the one that last failed. */
export function lastCommandsSection(facts: Pick<SessionFacts, 'lastCheckCommand' | 'latestErrorCommand'>): string {
  const lines: string[] = [];
  const check = facts.lastCheckCommand;
  const failed = facts.latestErrorCommand;
  if (check) lines.push(commandLine(failed?.key === check.key ? 'check, latest error' : 'check', check));
  if (failed && failed.key !== check?.key) lines.push(commandLine('latest error from', failed));
  return lines.length ? `### Last commands\n${lines.join('\n')}` : '';
}

function latestErrorSection(facts: SessionFacts): string {
  if (!facts.latestError) return '';
  const since = facts.errorCheckedSince ? '\nSince then the check passed (see Last commands).' : '';
  return `### Latest error\n${facts.latestError}${facts.latestErrorLocation ? `\nAt: ${facts.latestErrorLocation}` : ''}${since}`;
}

function changedSection(facts: SessionFacts, cap: number): string[] {
  if (!facts.filesChanged.length) return [];
  const lines = ['### Changed and verified', `- changed: ${facts.filesChanged.join(', ')}`];
  const check = facts.checkAfterChange;
  if (check) lines.push(`- checked after the change: \`${check.key}\` → ${check.outcome}`);
  if (facts.uncheckedChanges.length) lines.push(`- not checked since changed: ${facts.uncheckedChanges.join(', ')}`);
  else if (!check && cap > 0) lines.push('- no check has run since');
  return lines;
}

/**
 * A checkpoint is the state of the work in a fixed shape: what must never be lost comes first in
 * each section (the task, the files changed, the latest error and where, the last commands whole,
 * every stored output), the lists (findings, failures, questions) are cut to the room, newest kept.
 */
function render(facts: SessionFacts, count: number, request: Pick<SummaryRequest, 'focus' | 'style'>, room: Room, refs: string): string {
  const { cap } = room;
  const lines: string[] = [];
  const onlyRead = facts.filesRead.filter((p) => !facts.filesChanged.includes(p));
  const read = onlyRead.length && cap > 0 ? `files read: ${onlyRead.slice(-cap * 3).join(', ')}` : '';
  if (request.style === 'tool_digest') {
    lines.push(`[Digest of ${facts.toolCallCount} earlier tool call${facts.toolCallCount === 1 ? '' : 's'}; full outputs stay in the transcript]`);
    if (request.focus) lines.push(`Focus requested: ${request.focus}`);
    if (facts.filesChanged.length) lines.push(`Changed: ${facts.filesChanged.join(', ')}`);
    if (read) lines.push(`Read: ${read.slice('files read: '.length)}`);
    lines.push(...[latestErrorSection(facts), lastCommandsSection(facts)].filter(Boolean));
    lines.push(...list(facts.commands.map((c) => `\`${c.command}\` → ${c.outcome}`), cap * 2));
    lines.push(...list(facts.errors, cap));
    return lines.join('\n');
  }
  const heading = request.style === 'episode' ? 'Episode summary' : 'Checkpoint';
  lines.push(`## ${heading} (local summary of ${count} message${count === 1 ? '' : 's'})`);
  if (request.focus) lines.push(`Focus requested: ${request.focus}`);
  if (facts.task) lines.push(`### Task\n${facts.task}`);
  if (facts.latestRequest && facts.latestRequest !== facts.task?.slice(0, facts.latestRequest.length)) lines.push(`### Latest request\n${facts.latestRequest}`);
  const established = list(facts.established.map((f) => (f.source ? `${f.text} (from ${f.source})` : f.text)), cap);
  if (established.length || read) lines.push('### Established', ...established, ...(read ? [`- ${read}`] : []));
  lines.push(...changedSection(facts, cap));
  // The latest failure has its own section below: the list is what failed before it.
  const latest = facts.latestError ? ` failed: ${clip(facts.latestError, 160)}` : undefined;
  const failures = list(facts.failures.filter((f) => !latest || !f.endsWith(latest)), cap);
  if (failures.length) lines.push('### Failed', ...failures);
  const error = latestErrorSection(facts);
  if (error) lines.push(error);
  const commands = lastCommandsSection(facts);
  if (commands) lines.push(commands);
  const questions = list(facts.openQuestions, Math.min(cap, 3));
  if (questions.length) lines.push('### Open questions', ...questions);
  if (refs) lines.push(refs);
  lines.push(`### Next step\n${nextStepOf(facts)}`);
  return lines.join('\n');
}
