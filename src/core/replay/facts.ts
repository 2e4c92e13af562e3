import type { Message } from '../model/message';

/**
 * What an agent must not forget after a compaction, as kinds of fact the replay checks in every
 * request: the user's own words, the files of the run's final change the agent itself changed, the error of the latest
 * failing command, the instructions, a working reference for every tool result taken out, the
 * commands whose results the agent still acts on (the test or build command it last ran, the
 * command of the latest error) and the numbers the work depends on (line numbers, counts,
 * versions and error codes in the latest error and in the user's words), and the open items of
 * the agent's current todo list.
 */
export type FactKind = 'userWords' | 'finalChangePaths' | 'latestError' | 'instructions' | 'removedResultRefs' | 'commands' | 'numbers' | 'openTodos';

export const FACT_KINDS: readonly FactKind[] = ['userWords', 'finalChangePaths', 'latestError', 'instructions', 'removedResultRefs', 'commands', 'numbers', 'openTodos'];

export const FACT_LABELS: Record<FactKind, string> = {
  userWords: "user's words",
  finalChangePaths: 'final-change paths',
  latestError: 'latest error',
  instructions: 'instructions',
  removedResultRefs: 'removed-result refs',
  commands: 'commands',
  numbers: 'numbers',
  openTodos: 'open todos',
};

/** One fact: found when `text` occurs in a message of the request (refs are checked separately). */
export interface Fact {
  id: string;
  kind: FactKind;
  /** The text that must appear in the request (verbatim). */
  text: string;
  /** Another form that counts as the fact being present (a command as a tool call's JSON holds it). */
  alsoAs?: string;
}

/** The paths a unified diff changes (`diff --git a/X b/X`, or `+++ b/X` when there is no git header). */
export function pathsOfPatch(patch: string): string[] {
  const paths: string[] = [];
  const add = (p: string | undefined) => {
    if (p && p !== '/dev/null' && !paths.includes(p)) paths.push(p);
  };
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) add(match[2]);
  if (paths.length === 0) for (const match of patch.matchAll(/^\+\+\+ (?:b\/)?(\S+)/gm)) add(match[1]);
  return paths;
}

/** Text of a message as the model sees it: its content and its tool calls' arguments. */
export function requestTextOf(m: Message): string {
  const calls = m.toolCalls?.map((c) => `${c.name} ${c.arguments}`).join('\n');
  return calls ? `${m.content}\n${calls}` : m.content;
}

/** The final-change paths of an imported run, or undefined when its format does not record the change. */
export function finalChangePathsOf(meta: { finalChange?: string }): string[] | undefined {
  return meta.finalChange === undefined ? undefined : pathsOfPatch(meta.finalChange);
}
