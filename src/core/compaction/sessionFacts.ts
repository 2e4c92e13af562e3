import type { Message, ToolCall } from '../model/message';
import { commandOf, pathsOfCall } from './callPaths';
import { readCheckpoint } from './checkpointState';
import { conclusionsOf, roleOf, sentencesOf } from './findings';
import { callGist, describedRefsInSteps, testTally } from './storedOutputs';
import { runSteps, runStepsInSlices, STEP_MESSAGES } from './steps';
import { isOnlyDemonstration, taskTextOf } from './taskText';
import { commandKeyOf, errorLocationOf, isTestOrBuildCommand } from './workFacts';

export { commandOf, parseArguments } from './callPaths';

/** A command as a summary keeps it: whole (long ones cut, saying so), its first line, and how it ended. */
export interface RunCommand {
  command: string;
  /** Its first line: the form the retention check and a model's summary are checked for. */
  key: string;
  outcome: string;
}

/** Something the agent established, with where it learned it (the call whose output it was reading). */
export interface Finding {
  text: string;
  source?: string;
}

/**
 * The state of the work, extracted deterministically from messages (no model): what the task is,
 * what the agent established, what it changed and whether a check ran after, what failed and
 * why, what it left open and what it meant to do next; and the stored outputs, each named by what
 * it holds. A later checkpoint reads an earlier one back into the same state and adds to it.
 */
export interface SessionFacts {
  task?: string;
  latestRequest?: string;
  userRequests: string[];
  filesRead: string[];
  filesChanged: string[];
  /** Changed files no check ran after (a later change of a file needs a later check). */
  uncheckedChanges: string[];
  /** The check that ran after the last change, when one did. */
  checkAfterChange?: RunCommand;
  /** A file changed after the latest error: the agent has tried a fix for it. */
  changedSinceError: boolean;
  /** The last check ran after the latest error and passed. */
  errorCheckedSince: boolean;
  /** Every command run, first lines (for tool digests). */
  commands: Array<{ command: string; outcome: string }>;
  errors: string[];
  established: Finding[];
  /** What failed and why: the command and its error line, oldest first (earlier checkpoints' lines as they wrote them). */
  failures: string[];
  openQuestions: string[];
  /** The concrete action the agent's latest words planned, when they planned one. */
  plan?: string;
  /** The call the messages end on, its result not among them. */
  pendingCall?: string;
  earlierSummaries: string[];
  toolCallCount: number;
  /** The error line of the most recent failing command, verbatim. */
  latestError?: string;
  /** Where the latest error happened (a traceback's last frame, `file:line`), verbatim. */
  latestErrorLocation?: string;
  /** The command whose result is the latest error. */
  latestErrorCommand?: RunCommand;
  /** The test or build command run last. */
  lastCheckCommand?: RunCommand;
  /** read_result refs of stored tool outputs among these messages (and earlier summaries), oldest first. */
  storedRefs: string[];
  /** The same refs, each with what it holds. */
  refs: Map<string, string>;
}

const ERROR_LINE = /(error|exception|traceback|failed|failure|fatal|assert|panic|cannot|not found|denied)/i;
const MAX_FILES = 60;
const MAX_FINDINGS = 40;
/** How an archived pointer of a failing result names its error line. */
export const ARCHIVED_ERROR_PREFIX = 'Error line: ';
/** A command longer than this is kept to its first lines, saying how many more there were. */
const COMMAND_LINES = 20;
const COMMAND_CHARS = 1_200;

/** Text on one line, at most `max` characters (cut with "…"). */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

function pushUnique(list: string[], value: string, cap: number): void {
  if (!value || list.includes(value)) return;
  list.push(value);
  if (list.length > cap) list.shift();
}

/** A command whole, unless it is very long (a heredoc writing a file): then its first lines and how many more. */
export function wholeCommand(command: string): string {
  const text = command.trim();
  const lines = text.split('\n');
  if (lines.length <= COMMAND_LINES && text.length <= COMMAND_CHARS) return text;
  const kept: string[] = [];
  let chars = 0;
  for (const line of lines.slice(0, COMMAND_LINES)) {
    if (chars + line.length > COMMAND_CHARS && kept.length) break;
    kept.push(line);
    chars += line.length + 1;
  }
  return `${kept.join('\n')}\n… (${lines.length - kept.length} more line${lines.length - kept.length === 1 ? '' : 's'} in the transcript)`;
}

function runOf(command: string, outcome: string): RunCommand {
  return { command: wholeCommand(command), key: commandKeyOf(command), outcome };
}

function outcomeOf(result: Message | undefined): string {
  if (!result) return 'no result';
  if (result.kind === 'aborted') return 'aborted';
  const text = result.content;
  const rc = /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text) ?? /exit(?:ed with)? code[:\s]+(-?\d+)/i.exec(text);
  const lastLine = lastMeaningfulLine(text);
  // A test run says best how it went by its tally ("3 failed, 12 passed"), anything else by its last line.
  const why = testTally(text) ?? lastLine;
  if (rc) {
    const code = Number(rc[1]);
    return code === 0 ? 'ok' : `exit ${code}${why ? `: ${clip(why, 140)}` : ''}`;
  }
  if (result.meta?.isError) return `error${why ? `: ${clip(why, 140)}` : ''}`;
  return 'ok';
}

/** The line that says what went wrong: the last line that names an error, else the last non-empty line. */
export function errorLineOf(text: string): string | undefined {
  const lines = text
    .replace(/<\/?(output|returncode)>/g, '\n')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^-?\d+$/.test(l) && !/^\[…|^\[Tool result|^Use the "read_result"/.test(l));
  for (let i = lines.length - 1; i >= 0; i--) if (ERROR_LINE.test(lines[i])) return lines[i];
  return lines[lines.length - 1];
}

/** A tool result that reports a failure: flagged as an error, or a non-zero return code in the text. */
export function isFailingResult(m: Message): boolean {
  return m.role === 'tool' && (Boolean(m.meta?.isError) || /<returncode>\s*-?[1-9]\d*\s*<\/returncode>/.test(m.content));
}

function lastMeaningfulLine(text: string): string | undefined {
  const lines = text.replace(/<\/?(output|returncode)>/g, '').split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (line && !/^\[…|^\[Tool result|^Use the "read_result"/.test(line)) return line;
  }
  return undefined;
}

/**
 * Follows the order of events: each change and each check gets a step, so a change is checked
 * when a check ran at a later step. An earlier checkpoint's state comes in at the first steps.
 */
class ChangeLog {
  private step = 4;
  private readonly lastChange = new Map<string, number>();
  private lastCheck?: { run: RunCommand; step: number };
  private errorStep = -1;

  /**
   * An earlier checkpoint's state, in its order: an error it says a check passed after comes
   * first (step 0), then the checked changes (1), the check (2), an error still open (3), the
   * changes no check ran after (3).
   */
  carry(earlier: { changed: readonly string[]; unchecked: readonly string[]; check?: RunCommand; error: boolean; errorResolved: boolean }): void {
    for (const p of earlier.changed) this.lastChange.set(p, earlier.unchecked.includes(p) ? 3 : 1);
    if (earlier.check) this.lastCheck = { run: earlier.check, step: 2 };
    if (earlier.error) this.errorStep = earlier.errorResolved ? 0 : 3;
  }

  changed(path: string): void {
    this.lastChange.set(path, this.step++);
  }

  checked(run: RunCommand): void {
    this.lastCheck = { run, step: this.step++ };
  }

  failed(): void {
    this.errorStep = this.step++;
  }

  finish(facts: SessionFacts): void {
    const check = this.lastCheck;
    facts.uncheckedChanges = facts.filesChanged.filter((p) => !check || (this.lastChange.get(p) ?? 0) > check.step);
    const checked = check && facts.filesChanged.some((p) => (this.lastChange.get(p) ?? 0) < check.step);
    facts.checkAfterChange = checked ? check.run : undefined;
    facts.changedSinceError = this.errorStep >= 0 && [...this.lastChange.values()].some((step) => step > this.errorStep);
    facts.errorCheckedSince = this.errorStep >= 0 && check !== undefined && check.step > this.errorStep && check.run.outcome === 'ok';
  }
}

export function extractFacts(messages: readonly Message[]): SessionFacts {
  return runSteps(factsInSteps(messages));
}

/** extractFacts a slice of the messages at a time, with a turn of the event loop between slices. */
export function extractFactsInSlices(messages: readonly Message[]): Promise<SessionFacts> {
  return runStepsInSlices(factsInSteps(messages));
}

function* factsInSteps(messages: readonly Message[]): Generator<void, SessionFacts> {
  const refs = yield* describedRefsInSteps(messages);
  const facts: SessionFacts = {
    userRequests: [],
    filesRead: [],
    filesChanged: [],
    uncheckedChanges: [],
    changedSinceError: false,
    errorCheckedSince: false,
    commands: [],
    errors: [],
    established: [],
    failures: [],
    openQuestions: [],
    earlierSummaries: [],
    toolCallCount: 0,
    storedRefs: [],
    refs,
  };
  facts.storedRefs = [...facts.refs.keys()];
  const resultByCall = new Map<string, Message>();
  for (const m of messages) if (m.role === 'tool' && m.toolCallId) resultByCall.set(m.toolCallId, m);
  const callById = new Map<string, ToolCall>();
  const commandByCall = new Map<string, RunCommand>();
  const changes = new ChangeLog();
  let openFile: string | undefined;
  /** The call whose output the agent read last: where its next words were learned. */
  let lastSource: string | undefined;
  /** What each established finding says without its source, kept beside them: a long session checks this per finding. */
  const saidKeys: string[] = [];
  const addFinding = (text: string, source?: string) => {
    const said = text.replace(/ \(from .*\)$/, '');
    if (saidKeys.includes(said)) return;
    facts.established.push({ text, source });
    saidKeys.push(said);
    if (facts.established.length > MAX_FINDINGS) {
      facts.established.shift();
      saidKeys.shift();
    }
  };

  let step = 0;
  for (const m of messages) {
    if (++step % STEP_MESSAGES === 0) yield;
    if (m.kind === 'summary' || m.kind === 'tool_summary' || m.kind === 'episode') {
      facts.earlierSummaries.push(m.content);
      const earlier = readCheckpoint(m.content);
      if (earlier.task) facts.task ??= earlier.task;
      if (earlier.latestRequest) facts.latestRequest = earlier.latestRequest;
      for (const p of earlier.changed) pushUnique(facts.filesChanged, p, MAX_FILES);
      for (const p of earlier.read) pushUnique(facts.filesRead, p, MAX_FILES);
      changes.carry({ changed: earlier.changed, unchecked: earlier.unchecked, check: earlier.checkAfterChange ?? earlier.lastCheckCommand, error: Boolean(earlier.latestError), errorResolved: earlier.errorResolved });
      for (const line of earlier.established) addFinding(line);
      for (const line of earlier.failures) pushUnique(facts.failures, line, MAX_FINDINGS);
      for (const line of earlier.openQuestions) pushUnique(facts.openQuestions, line, 6);
      if (earlier.latestError) {
        facts.latestError = earlier.latestError;
        facts.latestErrorLocation = earlier.latestErrorLocation;
      }
      if (earlier.lastCheckCommand) facts.lastCheckCommand = earlier.lastCheckCommand;
      if (earlier.latestErrorCommand) facts.latestErrorCommand = earlier.latestErrorCommand;
      facts.plan = undefined;
      continue;
    }
    // An attached file or folder is something the user put in front of the model: its path is kept like a file read.
    if (m.kind === 'attachment' && m.meta?.attachment?.path) pushUnique(facts.filesRead, m.meta.attachment.path, MAX_FILES);
    if (m.role === 'user' && m.kind === 'user' && !isOnlyDemonstration(m.content)) {
      const task = taskTextOf(m.content);
      facts.task ??= clip(task, 600);
      facts.latestRequest = clip(task, 400);
      pushUnique(facts.userRequests, clip(task, 200), 12);
    }
    if (m.role === 'assistant') {
      const said = sentencesOf(m.content);
      if (said.length) facts.plan = undefined;
      for (const sentence of conclusionsOf(said)) addFinding(clip(sentence, 220), lastSource);
      for (const sentence of said) {
        const role = roleOf(sentence);
        if (role === 'question') pushUnique(facts.openQuestions, clip(sentence, 200), 6);
        else if (role === 'plan') facts.plan = clip(sentence, 240);
      }
      for (const call of m.toolCalls ?? []) {
        facts.toolCallCount++;
        callById.set(call.id, call);
        const paths = pathsOfCall(call, openFile);
        if (paths.opened) openFile = paths.opened;
        for (const p of paths.changed) {
          pushUnique(facts.filesChanged, p, MAX_FILES);
          changes.changed(p);
        }
        for (const p of paths.read) pushUnique(facts.filesRead, p, MAX_FILES);
        const command = commandOf(call);
        if (command !== undefined) {
          const run = runOf(command, outcomeOf(resultByCall.get(call.id)));
          facts.commands.push({ command: clip(run.key, 140), outcome: run.outcome });
          commandByCall.set(call.id, run);
          if (isTestOrBuildCommand(command)) {
            facts.lastCheckCommand = run;
            changes.checked(run);
          }
        }
      }
    }
    if (m.role === 'tool') {
      const call = m.toolCallId ? callById.get(m.toolCallId) : undefined;
      lastSource = call ? callGist(call, m.toolName ?? call.name) : m.toolName;
      const open = /\(Open file: ([^)\n]+)\)/.exec(m.content.slice(-400));
      if (open && open[1].trim() !== 'n/a') openFile = open[1].trim();
      const archivedError = m.kind === 'tool_result_archived' ? m.content.split('\n').find((l) => l.startsWith(ARCHIVED_ERROR_PREFIX)) : undefined;
      if (archivedError) {
        facts.latestError = archivedError.slice(ARCHIVED_ERROR_PREFIX.length);
        facts.latestErrorLocation = undefined;
        facts.latestErrorCommand = m.toolCallId ? commandByCall.get(m.toolCallId) : undefined;
        changes.failed();
      }
      if (m.kind === 'tool_result' && isFailingResult(m)) {
        const line = errorLineOf(m.content);
        if (line) {
          pushUnique(facts.errors, `${m.toolName ?? 'tool'}: ${clip(line, 200)}`, 10);
          facts.latestError = line.length > 600 ? line.slice(0, 600) : line;
          facts.latestErrorLocation = errorLocationOf(m.content, line);
          facts.latestErrorCommand = m.toolCallId ? commandByCall.get(m.toolCallId) : undefined;
          changes.failed();
          pushUnique(facts.failures, `${lastSource ?? 'a tool'} failed: ${clip(line, 160)}`, MAX_FINDINGS);
        }
      }
    }
  }
  changes.finish(facts);
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && last.toolCalls?.length) {
    const call = last.toolCalls[last.toolCalls.length - 1];
    facts.pendingCall = callGist(call, call.name, 160);
  }
  if (facts.commands.length > 30) facts.commands = facts.commands.slice(-30);
  return facts;
}

/**
 * The one next action the state calls for: the call the messages end on, else the plan the
 * agent's latest words named, else fixing the latest error or checking an unchecked change,
 * else finishing a checked change.
 */
export function nextStepOf(facts: SessionFacts): string {
  if (facts.pendingCall) return `Read the result of ${facts.pendingCall} (the call these messages end on), then go on.`;
  if (facts.plan) return facts.plan;
  // A command of several lines is named by where it stands whole, not by its first line.
  const run = facts.lastCheckCommand;
  const check = run && (run.command.includes('\n') ? 'the check under Last commands' : `\`${run.key}\``);
  const errorOpen = facts.latestError && !facts.changedSinceError && !facts.errorCheckedSince;
  if (errorOpen) {
    return `Fix \`${clip(facts.latestError!, 160)}\`${facts.latestErrorLocation ? ` (${clip(facts.latestErrorLocation, 120)})` : ''}, then run ${check ?? 'the failing command'} again.`;
  }
  if (facts.uncheckedChanges.length) return `Check the change to ${facts.uncheckedChanges.slice(-4).join(', ')}${check ? ` with ${check}` : ' with the tests'}.`;
  if (facts.filesChanged.length && facts.checkAfterChange?.outcome === 'ok') return `Review the change to ${facts.filesChanged.slice(-4).join(', ')} (\`${facts.checkAfterChange.key}\` passed after it) and finish.`;
  return facts.latestRequest ? 'Continue with the latest request.' : 'Continue with the task.';
}
