import type { Message, ToolCall } from '../model/message';
import { parseToolArguments } from '../tools/args';
import { commandKeyOf, errorLocationOf, isTestOrBuildCommand } from './workFacts';

/** Facts a checkpoint needs, extracted deterministically from messages (no model). */
export interface SessionFacts {
  task?: string;
  latestRequest?: string;
  userRequests: string[];
  filesRead: string[];
  filesChanged: string[];
  commands: Array<{ command: string; outcome: string }>;
  errors: string[];
  decisions: string[];
  nextStep?: string;
  earlierSummaries: string[];
  toolCallCount: number;
  /** The error line of the most recent failing command, verbatim. */
  latestError?: string;
  /** Where the latest error happened (a traceback's last frame, `file:line`), verbatim. */
  latestErrorLocation?: string;
  /** The command whose result is the latest error, its first line verbatim. */
  latestErrorCommand?: RunCommand;
  /** The test or build command run last, its first line verbatim. */
  lastCheckCommand?: RunCommand;
  /** read_result refs of stored tool outputs among these messages (and earlier summaries). */
  storedRefs: string[];
}

export interface RunCommand {
  command: string;
  outcome: string;
}

const PATH_KEYS = ['path', 'file', 'file_path', 'filePath', 'filename', 'target', 'dir', 'directory'];
const WRITE_TOOLS = /^(write|edit|create|str_replace|apply_patch|insert|replace|delete|rename|move)/i;
const COMMAND_TOOLS = /^(run_command|bash|shell|execute|terminal|run)/i;
const FILE_IN_TEXT = /(?:^|[\s'"`(=])((?:\.{0,2}\/)?[\w@-][\w./@-]*\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|json|md|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|toml|ya?ml|txt|cfg|ini|sh|sql|html|css|scss|rst|lock|xml))(?=$|[\s'"`):,;])/g;
const WRITE_IN_COMMAND = /(?:sed\s+-i|>>?|\btee\b|\bmv\b|\bcp\b|\brm\b|\btouch\b|\bpatch\b|apply|cat\s*<<)/;
const ERROR_LINE = /(error|exception|traceback|failed|failure|fatal|assert|panic|cannot|not found|denied)/i;
const DECISION = /\b(I'll|I will|I'm going to|let me|decid|instead|because|the (?:fix|issue|problem|cause|bug) (?:is|was)|root cause|plan|should|need to)\b/i;

export function parseArguments(call: ToolCall): Record<string, unknown> {
  try {
    return parseToolArguments(call.arguments);
  } catch {
    return {}; // facts are best effort: a call with broken arguments still counts, without its paths
  }
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

function pushUnique(list: string[], value: string, cap: number): void {
  if (!value || list.includes(value)) return;
  list.push(value);
  if (list.length > cap) list.shift();
}

/** The command a tool call runs, when it runs one. */
export function commandOf(call: ToolCall): string | undefined {
  const args = parseArguments(call);
  for (const key of ['command', 'cmd', 'script', 'input']) {
    const value = args[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return COMMAND_TOOLS.test(call.name) ? call.arguments.trim() : undefined;
}

function outcomeOf(result: Message | undefined): string {
  if (!result) return 'no result';
  if (result.kind === 'aborted') return 'aborted';
  const text = result.content;
  const rc = /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text) ?? /exit(?:ed with)? code[:\s]+(-?\d+)/i.exec(text);
  const lastLine = lastMeaningfulLine(text);
  if (rc) {
    const code = Number(rc[1]);
    return code === 0 ? 'ok' : `exit ${code}${lastLine ? `: ${clip(lastLine, 140)}` : ''}`;
  }
  if (result.meta?.isError) return `error${lastLine ? `: ${clip(lastLine, 140)}` : ''}`;
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

/** Files git reports as changed in a tool's output (`git diff`, `git status`). */
function changedFilesInGitOutput(text: string, facts: SessionFacts): void {
  for (const match of text.matchAll(/^diff --git a\/\S+ b\/(\S+)$/gm)) pushUnique(facts.filesChanged, match[1], MAX_FILES);
  for (const match of text.matchAll(/^\s*(?:modified|new file|deleted):\s+(\S+)$/gm)) pushUnique(facts.filesChanged, match[1], MAX_FILES);
}

/** Carries the file lists, latest error and stored refs of an earlier summary into this one. */
function carryForward(summary: string, facts: SessionFacts): void {
  const listed = (label: string) => new RegExp(`^(?:- )?${label}: (.+)$`, 'gm');
  for (const match of summary.matchAll(listed('[Cc]hanged'))) for (const p of match[1].split(', ')) pushUnique(facts.filesChanged, p, MAX_FILES);
  for (const match of summary.matchAll(listed('[Rr]ead'))) for (const p of match[1].split(', ')) pushUnique(facts.filesRead, p, MAX_FILES);
  const error = /^### Latest error\n(.+)(?:\nAt: (.+))?$/m.exec(summary);
  if (error) {
    facts.latestError = error[1];
    facts.latestErrorLocation = error[2];
  }
  for (const match of summary.matchAll(/^- (check|check, latest error|latest error from): `(.+)` → (.*)$/gm)) {
    const run = { command: match[2], outcome: match[3] };
    if (match[1].startsWith('check')) facts.lastCheckCommand = run;
    if (match[1] !== 'check') facts.latestErrorCommand = run;
  }
  for (const match of summary.matchAll(/^Stored outputs \(read_result ref_id\): (.+)$/gm)) for (const ref of match[1].split(', ')) pushUnique(facts.storedRefs, ref, MAX_REFS);
}

const MAX_FILES = 60;
/** How an archived pointer of a failing result names its error line. */
export const ARCHIVED_ERROR_PREFIX = 'Error line: ';
const MAX_REFS = 400;

function lastMeaningfulLine(text: string): string | undefined {
  const lines = text.replace(/<\/?(output|returncode)>/g, '').split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (line && !/^\[…|^\[Tool result|^Use the "read_result"/.test(line)) return line;
  }
  return undefined;
}

function filesFromCall(call: ToolCall, facts: SessionFacts): void {
  const args = parseArguments(call);
  const paths: string[] = [];
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value) paths.push(value);
  }
  const listed = args.paths;
  if (Array.isArray(listed)) for (const p of listed) if (typeof p === 'string') paths.push(p);
  const command = commandOf(call);
  const writes = WRITE_TOOLS.test(call.name) || (command !== undefined && WRITE_IN_COMMAND.test(command));
  if (command) for (const match of command.matchAll(FILE_IN_TEXT)) paths.push(match[1]);
  for (const path of paths) pushUnique(writes ? facts.filesChanged : facts.filesRead, path, MAX_FILES);
}

function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 12);
}

export function extractFacts(messages: readonly Message[]): SessionFacts {
  const facts: SessionFacts = {
    userRequests: [],
    filesRead: [],
    filesChanged: [],
    commands: [],
    errors: [],
    decisions: [],
    earlierSummaries: [],
    toolCallCount: 0,
    storedRefs: [],
  };
  const resultByCall = new Map<string, Message>();
  for (const m of messages) if (m.role === 'tool' && m.toolCallId) resultByCall.set(m.toolCallId, m);
  const commandByCall = new Map<string, RunCommand>();

  for (const m of messages) {
    if (m.kind === 'summary' || m.kind === 'tool_summary' || m.kind === 'episode') {
      facts.earlierSummaries.push(m.content);
      carryForward(m.content, facts);
      continue;
    }
    // An attached file or folder is something the user put in front of the model: its path is kept like a file read.
    if (m.kind === 'attachment' && m.meta?.attachment?.path) pushUnique(facts.filesRead, m.meta.attachment.path, MAX_FILES);
    if (m.role === 'user' && m.kind === 'user') {
      facts.task ??= clip(m.content, 600);
      facts.latestRequest = clip(m.content, 400);
      pushUnique(facts.userRequests, clip(m.content, 200), 12);
    }
    if (m.role === 'assistant') {
      for (const s of sentences(m.content)) if (DECISION.test(s)) pushUnique(facts.decisions, clip(s, 220), 10);
      for (const call of m.toolCalls ?? []) {
        facts.toolCallCount++;
        filesFromCall(call, facts);
        const command = commandOf(call);
        if (command !== undefined) {
          const outcome = outcomeOf(resultByCall.get(call.id));
          facts.commands.push({ command: clip(command.split('\n')[0], 140), outcome });
          const run = { command: commandKeyOf(command), outcome };
          commandByCall.set(call.id, run);
          if (isTestOrBuildCommand(run.command)) facts.lastCheckCommand = run;
        }
      }
      if (m.content.trim()) {
        const last = sentences(m.content).pop();
        if (last) facts.nextStep = clip(last, 300);
      }
    }
    if (m.meta?.offloadRef) pushUnique(facts.storedRefs, m.meta.offloadRef, MAX_REFS);
    if (m.role === 'tool') {
      if (m.kind === 'tool_result') changedFilesInGitOutput(m.content, facts);
      const archivedError = m.kind === 'tool_result_archived' ? m.content.split('\n').find((l) => l.startsWith(ARCHIVED_ERROR_PREFIX)) : undefined;
      if (archivedError) {
        facts.latestError = archivedError.slice(ARCHIVED_ERROR_PREFIX.length);
        facts.latestErrorLocation = undefined;
        facts.latestErrorCommand = m.toolCallId ? commandByCall.get(m.toolCallId) : undefined;
      }
      if (m.kind === 'tool_result' && isFailingResult(m)) {
        const line = errorLineOf(m.content);
        if (line) {
          pushUnique(facts.errors, `${m.toolName ?? 'tool'}: ${clip(line, 200)}`, 10);
          facts.latestError = line.length > 600 ? line.slice(0, 600) : line;
          facts.latestErrorLocation = errorLocationOf(m.content, line);
          facts.latestErrorCommand = m.toolCallId ? commandByCall.get(m.toolCallId) : undefined;
        }
      }
    }
  }
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && last.toolCalls?.length) {
    const call = last.toolCalls[last.toolCalls.length - 1];
    facts.nextStep = `continue after ${call.name} ${clip(call.arguments, 160)}`;
  }
  if (facts.commands.length > 30) facts.commands = facts.commands.slice(-30);
  return facts;
}
