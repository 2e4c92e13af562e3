import type { Message, ToolCall } from '../model/message';
import { commandOf, parseArguments } from './callPaths';
import { runSteps, STEP_MESSAGES } from './steps';

/**
 * The stored outputs a summary, a digest or a drop marker replaced, each named by what it holds
 * (`r…: bash \`pytest tests\` → exit 1, 3 failed`), so an agent knows which one to read again:
 *
 *     Stored outputs (read_result ref_id):
 *     - r0mx…: bash `pytest tests` → exit 1, 3 failed
 *
 * An older form listed the refs alone on the heading's line; both are read back.
 */
export const STORED_OUTPUTS_HEADING = 'Stored outputs (read_result ref_id):';

const HEADING_LINE = /^(?:#+ )?Stored outputs \(read_result ref_id\):?[ \t]*(.*)$/;
/** `- r1: what it holds`, or several refs listed bare on one line: `- r1, r2: earlier outputs`. */
const REF_LINE = /^- ((?:[^\s,:]+, )*[^\s,:]+): (.*)$/;

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A test run's tally in its output ("3 failed, 12 passed", "FAILED (failures=2)", "Ran 14 tests … OK"). */
export function testTally(text: string): string | undefined {
  const pytest = /(\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, \d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?))*)(?: in [\d.]+s)?/g;
  let last: string | undefined;
  for (const m of text.matchAll(pytest)) last = m[1];
  if (last) return last;
  const ran = /Ran (\d+) tests?[\s\S]{0,200}?\n(OK|FAILED[^\n]*)/.exec(text);
  return ran ? `${ran[1]} tests, ${ran[2].toLowerCase()}` : undefined;
}

function returnCode(text: string, m: Message): number | undefined {
  const rc = /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text) ?? /exit(?:ed with)? code[:\s]+(-?\d+)/i.exec(text);
  if (rc) return Number(rc[1]);
  return m.meta?.isError ? 1 : undefined;
}

/** What a call asked for, short: its command's first line, else its path, else its arguments. */
export function callGist(call: ToolCall | undefined, toolName: string, max = 70): string {
  if (!call) return toolName;
  const command = commandOf(call);
  if (command !== undefined) return `${toolName} \`${clip(command.split('\n')[0], max)}\`${command.includes('\n') ? ' …' : ''}`;
  const args = parseArguments(call);
  for (const key of ['path', 'file', 'file_path', 'filePath', 'filename', 'file_name', 'url', 'query', 'pattern']) {
    if (typeof args[key] === 'string' && args[key]) return `${toolName} ${clip(args[key] as string, max)}`;
  }
  const raw = call.arguments.trim();
  return raw && raw !== '{}' ? `${toolName} ${clip(raw, max)}` : toolName;
}

/** What an output holds, in a few words: how it ended and how much of it there is. */
export function outputGist(m: Message): string {
  const text = m.content;
  const code = returnCode(text, m);
  const tally = testTally(text);
  const lines = m.meta?.truncated?.originalLines ?? text.split('\n').length;
  const parts = [code === undefined ? undefined : code === 0 ? 'ok' : `exit ${code}`, tally, `${lines.toLocaleString('en-US')} line${lines === 1 ? '' : 's'}`];
  return parts.filter(Boolean).join(', ');
}

/** The pointer an archived result left: `[Archived tool result: bash {"command":…} — ok, 35 lines, 1,234 tokens, …]`. */
function archivedGist(m: Message, call: ToolCall | undefined): string | undefined {
  const match = /^\[Archived tool result: (\S+)(?: (.*?))? — (.*?[\d,]+ tokens)/.exec(m.content);
  if (!match) return undefined;
  const what = call ? callGist(call, m.toolName ?? call.name) : match[2] ? callGist({ id: '', name: match[1], arguments: match[2] }, match[1]) : match[1];
  const error = /^Error line: (.*)$/m.exec(m.content);
  return `${what} → ${match[3]}${error ? `, failed: ${clip(error[1], 60)}` : ''}`;
}

/**
 * Each stored output among the messages with what it holds: its own ref (a result kept in the
 * store), and those earlier summaries, digests and markers list with their descriptions.
 */
export function describedRefs(messages: readonly Message[]): Map<string, string> {
  return runSteps(describedRefsInSteps(messages));
}

/** describedRefs, pausing (a `yield`) every `STEP_MESSAGES` messages: see factsInSlices. */
export function* describedRefsInSteps(messages: readonly Message[]): Generator<void, Map<string, string>> {
  const calls = new Map<string, ToolCall>();
  for (const m of messages) for (const c of m.toolCalls ?? []) calls.set(c.id, c);
  yield;
  const out = new Map<string, string>();
  let step = 0;
  for (const m of messages) {
    if (++step % STEP_MESSAGES === 0) yield;
    for (const [ref, description] of refsListedIn(m.content)) if (!out.has(ref) || description) out.set(ref, description || out.get(ref) || '');
    const ref = m.meta?.offloadRef;
    if (!ref || out.get(ref)) continue;
    const toolName = m.toolName ?? 'tool';
    const call = m.toolCallId ? calls.get(m.toolCallId) : undefined;
    const description = m.kind === 'tool_result_archived' ? archivedGist(m, call) ?? callGist(call, toolName) : `${callGist(call, toolName)} → ${outputGist(m)}`;
    out.set(ref, description);
  }
  return out;
}

/** The refs a text lists under its stored-outputs heading, with their descriptions ('' when listed bare). */
export function refsListedIn(text: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!text.includes('Stored outputs (read_result ref_id)')) return out;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heading = HEADING_LINE.exec(lines[i]);
    if (!heading) continue;
    for (const ref of heading[1].split(', ').map((r) => r.trim()).filter(Boolean)) if (!out.has(ref)) out.set(ref, '');
    for (let j = i + 1; j < lines.length; j++) {
      const entry = REF_LINE.exec(lines[j]);
      if (!entry) break;
      const refs = entry[1].split(', ');
      for (const ref of refs) if (refs.length === 1 || !out.has(ref)) out.set(ref, refs.length === 1 ? entry[2] : '');
    }
  }
  return out;
}

/**
 * The stored-outputs block: each ref on its line with what it holds. `described`: how many of the
 * newest keep their description when room is short (the older ones are listed by ref alone, on one line).
 */
export function storedOutputsBlock(refs: ReadonlyMap<string, string>, described = Infinity): string {
  if (refs.size === 0) return '';
  const entries = [...refs];
  const bare = Math.max(0, entries.length - described);
  const lines = [STORED_OUTPUTS_HEADING];
  if (bare > 0) lines.push(`- ${entries.slice(0, bare).map(([ref]) => ref).join(', ')}: earlier outputs`);
  for (const [ref, description] of entries.slice(bare)) lines.push(`- ${ref}: ${description || 'stored output'}`);
  return lines.join('\n');
}
