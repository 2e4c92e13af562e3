import type { Message } from '../../model/message';
import type { HistoryUnit } from '../units';

/** Words of a focus that say nothing about which items it means. */
const STOPWORDS = new Set(
  'keep keeps kept the a an of for to and or in on at with about output outputs result results all any that this these those please only from focus context important it its is are be was were my our your me us we i everything'.split(' '),
);
const PATH_LIKE = /[\w.@-]*[/.][\w./@-]+/;

/** Cuts common English endings so "failing", "failed" and "fails" all match "fail". */
function stem(word: string): string {
  return word.replace(/(?:ing|ed|es|s)$/, '') || word;
}

export interface FocusMatcher {
  /** True for an item the focus names: by tool name, by a path, or by all its keywords in the text. */
  matches(m: Message): boolean;
  readonly active: boolean;
}

const NOTHING: FocusMatcher = { matches: () => false, active: false };

/**
 * What a manual compaction's focus ("keep the failing test output", "src/parser.ts", "grep")
 * protects. A word that names a tool used in the history matches that tool's calls and results; a
 * path matches any item mentioning it; the other words must all occur (by stem) in the item.
 */
export function focusMatcher(focus: string | undefined, messages: readonly Message[]): FocusMatcher {
  if (!focus?.trim()) return NOTHING;
  const toolNames = new Set<string>();
  for (const m of messages) {
    if (m.toolName) toolNames.add(m.toolName.toLowerCase());
    for (const c of m.toolCalls ?? []) toolNames.add(c.name.toLowerCase());
  }
  const tools = new Set<string>();
  const paths: string[] = [];
  const keywords: string[] = [];
  for (const raw of focus.split(/[\s,;"'`()]+/)) {
    const word = raw.replace(/^[^\w./@-]+|[^\w/@-]+$/g, '');
    if (!word) continue;
    if (toolNames.has(word.toLowerCase())) tools.add(word.toLowerCase());
    else if (PATH_LIKE.test(word) && /[\w]/.test(word)) paths.push(word);
    else if (word.length >= 3 && !STOPWORDS.has(word.toLowerCase())) keywords.push(stem(word.toLowerCase()));
  }
  if (tools.size === 0 && paths.length === 0 && keywords.length === 0) return NOTHING;
  return {
    active: true,
    matches(m) {
      if (m.toolName && tools.has(m.toolName.toLowerCase())) return true;
      if (m.toolCalls?.some((c) => tools.has(c.name.toLowerCase()))) return true;
      const text = `${m.content}\n${(m.toolCalls ?? []).map((c) => c.arguments).join('\n')}`;
      if (paths.some((p) => text.includes(p))) return true;
      if (keywords.length === 0) return false;
      const lower = text.toLowerCase();
      return keywords.every((k) => lower.includes(k));
    },
  };
}

/** A unit a strategy must keep as it is: pinned, or matching the focus. */
export function unitIsKept(messages: readonly Message[], unit: HistoryUnit, focus: FocusMatcher): boolean {
  for (let i = unit.start; i < unit.end; i++) if (messages[i].pinned || focus.matches(messages[i])) return true;
  return false;
}
