import type { ToolDefinition } from '../model/tool';
import { toolGroupLabel, toolGroupRank } from './toolGroup';

/**
 * Which tools the user chose to offer the model (Configure Tools). Built-in tools are offered
 * unless turned off; tools from VS Code, other extensions and MCP servers only once turned on. It
 * lives in the user's global state, never in a setting a repository could write.
 */
export interface ToolChoice {
  /** Tools from VS Code, other extensions and MCP servers the user turned on. */
  enabled: string[];
  /** Built-in tools the user turned off. */
  disabled: string[];
}

export const NO_TOOL_CHOICE: ToolChoice = { enabled: [], disabled: [] };

/** VS Code's own plumbing tools (`vscode_editFile_internal`…): never offered, not even listed. */
export function isInternalTool(name: string): boolean {
  return /(?:^|[_\-.])internal(?:$|[_\-.])/i.test(name);
}

/** Whether the choice offers this tool to the model. */
export function offeredByChoice(tool: Pick<ToolDefinition, 'name' | 'source'>, choice: ToolChoice): boolean {
  if (tool.source === 'builtin') return !choice.disabled.includes(tool.name);
  return !isInternalTool(tool.name) && choice.enabled.includes(tool.name);
}

/** A stored choice read back: anything malformed counts as no choice (the defaults), never as "everything on". */
export function parseToolChoice(value: unknown): ToolChoice {
  if (!value || typeof value !== 'object') return NO_TOOL_CHOICE;
  const names = (list: unknown) => (Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : []);
  const { enabled, disabled } = value as { enabled?: unknown; disabled?: unknown };
  return { enabled: names(enabled).filter((n) => !isInternalTool(n)), disabled: names(disabled) };
}

/**
 * The choice the picker's selection makes: every listed built-in not picked is off, every other
 * listed tool picked is on. Tools not listed now (an extension that is disabled for the moment)
 * keep their earlier state.
 */
export function choiceFromPicked(rows: ReadonlyArray<Pick<ToolDefinition, 'name' | 'source'> & { alwaysOffered?: boolean }>, picked: ReadonlySet<string>, previous: ToolChoice = NO_TOOL_CHOICE): ToolChoice {
  const listed = rows.filter((t) => !t.alwaysOffered);
  const shown = new Set(listed.map((t) => t.name));
  return {
    enabled: [...previous.enabled.filter((n) => !shown.has(n)), ...listed.filter((t) => t.source !== 'builtin' && picked.has(t.name) && !isInternalTool(t.name)).map((t) => t.name)],
    disabled: [...previous.disabled.filter((n) => !shown.has(n)), ...listed.filter((t) => t.source === 'builtin' && !picked.has(t.name)).map((t) => t.name)],
  };
}

/** One tool as the picker lists it: where it comes from, what it costs in every request, whether it is on. */
export interface ToolPickerRow {
  name: string;
  description: string;
  /** Where it comes from, as the inspector's tokens by tool names it too (see toolGroupLabel). */
  group: string;
  source: ToolDefinition['source'];
  /** Where it comes from in words (built-in, the extension's id, VS Code, the MCP server). */
  origin: string;
  /** Its definition's tokens with its framing: what offering it adds to every request. */
  tokens: number;
  picked: boolean;
  /** Tally's own tools that act on the session (read_result, compact_context…): offered whatever the choice. */
  alwaysOffered: boolean;
}

/**
 * The picker's rows: built-in tools first, then Tally's session tools, then VS Code's and other
 * extensions' tools (each extension's together; VS Code's MCP tools among them), then each MCP
 * server Tally runs, by name; each tool once (the first of a name wins, as a call would run it),
 * internal tools left out.
 */
export function toolPickerRows(definitions: readonly ToolDefinition[], choice: ToolChoice, tokensOf: (tool: ToolDefinition) => number, alwaysOffered: ReadonlySet<string> = new Set()): ToolPickerRow[] {
  const seen = new Set<string>();
  const rows: Array<ToolPickerRow & { rank: number }> = [];
  for (const tool of definitions) {
    if (seen.has(tool.name) || isInternalTool(tool.name)) continue;
    seen.add(tool.name);
    rows.push({
      name: tool.name,
      description: tool.description.replace(/\s+/g, ' ').trim(),
      group: toolGroupLabel(tool),
      rank: toolGroupRank(tool),
      source: tool.source,
      origin: tool.source === 'builtin' ? 'built-in' : (tool.origin ?? tool.source),
      tokens: tokensOf(tool),
      picked: alwaysOffered.has(tool.name) || offeredByChoice(tool, choice),
      alwaysOffered: alwaysOffered.has(tool.name),
    });
  }
  // Extensions' and servers' groups by name (each one's tools together); rows keep their order within a group.
  rows.sort((a, b) => a.rank - b.rank || (a.rank >= 2 ? a.group.localeCompare(b.group) : 0));
  return rows.map(({ rank, ...row }) => (void rank, row));
}

/** Each group's tools and what those it offers add to every request (the picker's separators show them). */
export function toolGroupTotals(rows: readonly ToolPickerRow[]): Array<{ group: string; tools: number; offeredTokens: number }> {
  const totals = new Map<string, { group: string; tools: number; offeredTokens: number }>();
  for (const row of rows) {
    const t = totals.get(row.group) ?? { group: row.group, tools: 0, offeredTokens: 0 };
    t.tools += 1;
    if (row.picked) t.offeredTokens += row.tokens;
    totals.set(row.group, t);
  }
  return [...totals.values()];
}

/** Tokens the picked rows add to every request: the figure the picker, its message and the inspector's tools share. */
export function pickedToolTokens(rows: readonly ToolPickerRow[], picked: ReadonlySet<string>): number {
  return rows.filter((r) => r.alwaysOffered || picked.has(r.name)).reduce((n, r) => n + r.tokens, 0);
}
