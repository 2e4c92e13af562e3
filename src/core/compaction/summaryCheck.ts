import type { Message } from '../model/message';
import { lastCommandsSection, summarizeLocally } from './localSummarizer';
import { extractFacts, type SessionFacts } from './sessionFacts';
import { storedOutputsBlock } from './storedOutputs';
import { taskTextOf } from './taskText';
import type { SummaryRequest } from './types';
import { numbersIn } from './workFacts';

/** The headings a checkpoint from a model is asked for (the summary's fixed shape). */
export const CHECKPOINT_HEADINGS = ['Task', 'Established', 'Changed', 'Failed', 'Open questions', 'Next step'];

/** Other words a model may head the same section with. */
const HEADING_ALSO: Record<string, string[]> = {
  Established: ['Findings', 'Facts', 'Decisions', 'Conclusions', 'Known'],
  Changed: ['Files touched', 'Files changed', 'Changes', 'Modified'],
  Failed: ['Errors', 'Failures', 'What failed'],
  'Open questions': ['Questions', 'Unknowns', 'Open issues'],
  'Next step': ['Next steps', 'Next'],
};

/** A checked summary: the text that replaces history, and what the check did to it, in words. */
export interface CheckedSummary {
  text: string;
  note?: string;
}

/** What a summary must carry of the messages it replaces, by kind, each verbatim. */
interface DueFacts {
  paths: string[];
  /** Files and folders the user attached. */
  attached: string[];
  errorLines: string[];
  commands: string[];
  numbers: string[];
  refs: string[];
}

const LABELS: Record<keyof DueFacts, [string, string]> = {
  paths: ['path', 'paths'],
  attached: ['attached path', 'attached paths'],
  errorLines: ['error line', 'error lines'],
  commands: ['command', 'commands'],
  numbers: ['number', 'numbers'],
  refs: ['stored-output ref', 'stored-output refs'],
};

function hasHeading(text: string, heading: string): boolean {
  // "## Task", "**Task**", "Task:" at the start of a line, in any case.
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^[#*\\s-]*${escaped}\\b`, 'im').test(text);
}

function dueFacts(messages: readonly Message[], style: SummaryRequest['style'], facts: SessionFacts): DueFacts {
  const errorLines = [facts.latestError, facts.latestErrorLocation].filter((l): l is string => Boolean(l));
  const commands = [facts.lastCheckCommand?.key, facts.latestErrorCommand?.key].filter((c): c is string => Boolean(c));
  // The numbers of the task the user stated, not of a worked example their message may carry.
  const userText = messages.filter((m) => m.role === 'user' && m.kind === 'user').map((m) => taskTextOf(m.content)).join('\n');
  const numbers = [...new Set([...numbersIn(errorLines.join('\n')), ...numbersIn(userText)])];
  // A tool digest's refs are listed by the strategy under it, not by the summary.
  const refs = style === 'tool_digest' ? [] : facts.storedRefs;
  const attached = [...new Set(messages.flatMap((m) => (m.kind === 'attachment' && m.meta?.attachment?.path ? [m.meta.attachment.path] : [])))];
  return { paths: facts.filesChanged, attached, errorLines, commands: [...new Set(commands)], numbers, refs };
}

/**
 * Checks a model-written checkpoint before it replaces history: it must have most of the
 * checkpoint's headings and keep, verbatim, the files changed, the latest error and where it
 * happened, the last commands, the numbers of the error and of the user's words, and the refs of
 * the stored outputs it replaces. What it left out is appended from the messages; a summary that
 * keeps less than half of its shape or of those facts is replaced by the local summary. Digests
 * and episode summaries are checked for the facts only. The note saying what the check did is
 * for the user, beside the text: the model reads the text alone.
 */
export function checkModelSummary(text: string, request: Pick<SummaryRequest, 'messages' | 'style' | 'focus' | 'maxTokens'>, facts = extractFacts(request.messages)): CheckedSummary {
  const due = dueFacts(request.messages, request.style, facts);
  const missing: DueFacts = { paths: [], attached: [], errorLines: [], commands: [], numbers: [], refs: [] };
  let dueCount = 0;
  let missingCount = 0;
  for (const kind of Object.keys(due) as Array<keyof DueFacts>) {
    missing[kind] = due[kind].filter((fact) => !text.includes(fact));
    // A number inside a missing error line comes back with the line: counted once.
    if (kind === 'numbers') missing.numbers = missing.numbers.filter((n) => !missing.errorLines.some((l) => l.includes(n)));
    dueCount += due[kind].length;
    missingCount += missing[kind].length;
  }
  const headings = CHECKPOINT_HEADINGS.filter((h) => [h, ...(HEADING_ALSO[h] ?? [])].some((name) => hasHeading(text, name))).length;
  const shapeShort = request.style === 'checkpoint' && headings < CHECKPOINT_HEADINGS.length / 2;
  if (shapeShort || (dueCount >= 2 && missingCount > dueCount / 2)) {
    const why = shapeShort ? `had ${headings} of the ${CHECKPOINT_HEADINGS.length} headings` : `left out ${missingCount} of ${dueCount} facts`;
    return { text: summarizeLocally(request.messages, request, facts), note: `the model's summary ${why}: local summary used` };
  }
  if (missingCount === 0) return { text };
  const lines = ['### Completed from the session (the model\'s summary left these out)'];
  if (missing.paths.length) lines.push(`Changed: ${missing.paths.join(', ')}`);
  if (missing.attached.length) lines.push(`Attached by the user: ${missing.attached.join(', ')}`);
  if (missing.errorLines.length) lines.push('### Latest error', ...(facts.latestError ? [facts.latestError] : []), ...(facts.latestErrorLocation ? [`At: ${facts.latestErrorLocation}`] : []));
  if (missing.commands.length) {
    lines.push(lastCommandsSection({
      lastCheckCommand: missing.commands.includes(facts.lastCheckCommand?.key ?? '') ? facts.lastCheckCommand : undefined,
      latestErrorCommand: missing.commands.includes(facts.latestErrorCommand?.key ?? '') ? facts.latestErrorCommand : undefined,
    }));
  }
  if (missing.numbers.length) lines.push(`Numbers: ${missing.numbers.join(', ')}`);
  if (missing.refs.length) lines.push(storedOutputsBlock(new Map(missing.refs.map((ref) => [ref, facts.refs.get(ref) ?? '']))));
  const counts = (Object.keys(missing) as Array<keyof DueFacts>)
    .filter((kind) => missing[kind].length)
    .map((kind) => `${missing[kind].length} ${LABELS[kind][missing[kind].length === 1 ? 0 : 1]}`);
  return { text: `${text}\n${lines.join('\n')}`, note: `completed: ${counts.join(', ')} the model's summary left out` };
}
