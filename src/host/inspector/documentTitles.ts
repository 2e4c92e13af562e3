/**
 * Names for what Tally opens or lists: a tool call by its tool and what it acted on (the command,
 * the path, the pattern), never by an opaque id, with invisible and direction-changing characters
 * shown as ⟨U+…⟩ markers (the inspector and the editor tabs show these names). No `vscode` import.
 */
import type { Message } from '../../core/model/message';
import type { RequestUsageRecord } from '../../core/model/records';
import { clipRevealed, revealCharacters } from '../../protocol/hiddenCharacters';

/** Argument names that say what a call acted on, most telling first. */
const SUBJECT_KEYS = ['command', 'cmd', 'pattern', 'query', 'path', 'file', 'filePath', 'file_path', 'url', 'name', 'ref_id'];
const SUBJECT_CHARS = 60;

/** One short line: hidden characters as markers first (some of them count as white space). */
function clip(text: string, max = SUBJECT_CHARS): string {
  return clipRevealed(revealCharacters(text).replace(/\s+/g, ' ').trim(), max);
}

/** "npm test" for run_command {"command":"npm test"}; "" when the arguments say nothing useful. */
export function toolCallSubject(argumentsJson: string | undefined): string {
  if (!argumentsJson) return '';
  let args: unknown;
  try {
    args = JSON.parse(argumentsJson);
  } catch {
    return clip(argumentsJson);
  }
  if (!args || typeof args !== 'object') return '';
  const record = args as Record<string, unknown>;
  for (const key of SUBJECT_KEYS) if (typeof record[key] === 'string' && record[key]) return clip(record[key] as string);
  const firstString = Object.values(record).find((v): v is string => typeof v === 'string' && v.length > 0);
  return firstString ? clip(firstString) : '';
}

/** "run_command npm test" */
export function toolCallLabel(toolName: string, argumentsJson?: string): string {
  const subject = toolCallSubject(argumentsJson);
  const tool = revealCharacters(toolName);
  return subject ? `${tool} ${subject}` : tool;
}

/** The arguments of each tool call in a transcript, by call id. */
export function callArguments(transcript: readonly Message[]): Map<string, { name: string; arguments: string }> {
  const out = new Map<string, { name: string; arguments: string }>();
  for (const m of transcript) for (const c of m.toolCalls ?? []) out.set(c.id, { name: c.name, arguments: c.arguments });
  return out;
}

/** "run_command npm test · request #12" */
export function withRequest(label: string, requestIndex: number | undefined): string {
  return requestIndex === undefined ? label : `${label} · request #${requestIndex}`;
}

/** Usage records in the order they were made, for `firstRequestAfter`. */
export function requestsByTime(usage: readonly RequestUsageRecord[]): RequestUsageRecord[] {
  return [...usage].sort((a, b) => a.createdAt - b.createdAt || a.requestIndex - b.requestIndex);
}

/**
 * The first request made at or after `time`: the one that first carried a message recorded then
 * (found from the records' times, so no request's item list has to be read).
 */
export function firstRequestAfter(byTime: readonly RequestUsageRecord[], time: number | undefined): number | undefined {
  if (time === undefined) return undefined;
  let lo = 0;
  let hi = byTime.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byTime[mid].createdAt < time) lo = mid + 1;
    else hi = mid;
  }
  return byTime[lo]?.requestIndex;
}
