import { commandKeyOf } from './workFacts';

/** A command as an earlier checkpoint wrote it. */
export interface WrittenCommand {
  command: string;
  key: string;
  outcome: string;
}

/** What an earlier checkpoint (or digest) says, read back so a later one merges it instead of quoting it. */
export interface EarlierState {
  task?: string;
  latestRequest?: string;
  changed: string[];
  /** Changed files it said no check ran after. */
  unchecked: string[];
  checkAfterChange?: WrittenCommand;
  read: string[];
  established: string[];
  failures: string[];
  openQuestions: string[];
  latestError?: string;
  latestErrorLocation?: string;
  /** It said a check passed after the latest error. */
  errorResolved: boolean;
  lastCheckCommand?: WrittenCommand;
  latestErrorCommand?: WrittenCommand;
}

const COMMAND_LINE = /^- (check|check, latest error|latest error from)(?:: `(.+)`)? → (.*)$/;
const FENCE = /^```/;

/** The lines under each `### ` heading. */
function sections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const heading = /^### (.+)$/.exec(line);
    if (heading) out.set(heading[1].trim(), (current = []));
    else if (/^(?:## |\[|Stored outputs \(read_result ref_id\))/.test(line)) current = undefined;
    else current?.push(line);
  }
  return out;
}

function items(lines: readonly string[] | undefined): string[] {
  return (lines ?? []).filter((l) => l.startsWith('- ')).map((l) => l.slice(2));
}

const listAfter = (label: string, text: string) => [...text.matchAll(new RegExp(`^(?:- )?${label}: (.+)$`, 'gm'))].flatMap((m) => m[1].split(', ').map((p) => p.trim()).filter(Boolean));

/** The commands of a "Last commands" section: inline (`- check: \`cmd\` → ok`) or fenced below their line. */
function lastCommands(lines: readonly string[]): Array<[string, WrittenCommand]> {
  const out: Array<[string, WrittenCommand]> = [];
  for (let i = 0; i < lines.length; i++) {
    const match = COMMAND_LINE.exec(lines[i]);
    if (!match) continue;
    let command = match[2];
    if (command === undefined && FENCE.test(lines[i + 1] ?? '')) {
      const body: string[] = [];
      let j = i + 2;
      for (; j < lines.length && !FENCE.test(lines[j]); j++) body.push(lines[j]);
      command = body.join('\n');
      i = j;
    }
    if (command) out.push([match[1], { command, key: commandKeyOf(command), outcome: match[3] }]);
  }
  return out;
}

/** Reads a checkpoint, an episode summary or a tool digest Tally wrote (this shape or the one before it). */
export function readCheckpoint(text: string): EarlierState {
  const s = sections(text);
  const state: EarlierState = { changed: listAfter('[Cc]hanged', text), unchecked: listAfter('not checked since changed', text), read: [...listAfter('[Rr]ead', text), ...listAfter('files read', text)], established: [], failures: [], openQuestions: [], errorResolved: false };
  const block = (name: string) => s.get(name)?.join('\n').trim() || undefined;
  state.task = block('Task');
  state.latestRequest = block('Latest request');
  state.established = items(s.get('Established')).filter((l) => !l.startsWith('files read: '));
  state.failures = items(s.get('Failed'));
  state.openQuestions = items(s.get('Open questions'));
  const error = s.get('Latest error')?.filter((l) => l.trim());
  if (error?.length) {
    state.latestError = error[0];
    state.latestErrorLocation = error.find((l) => l.startsWith('At: '))?.slice(4);
    state.errorResolved = error.some((l) => l.startsWith('Since then the check passed'));
  }
  for (const [role, run] of lastCommands(s.get('Last commands') ?? [])) {
    if (role.startsWith('check')) state.lastCheckCommand = run;
    if (role !== 'check') state.latestErrorCommand = run;
  }
  const checked = /^- checked after the change: `(.+)` → (.*)$/m.exec(text);
  if (checked) state.checkAfterChange = { command: checked[1], key: commandKeyOf(checked[1]), outcome: checked[2] };
  return state;
}
