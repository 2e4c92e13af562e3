/**
 * Tally's tools as hook scripts written for Claude Code know them: the name they match and the
 * input fields they read. A tool without a counterpart keeps its own name and input.
 */
const CLAUDE_NAMES: Record<string, { name: string; input(args: Record<string, unknown>): Record<string, unknown> }> = {
  run_command: { name: 'Bash', input: (a) => ({ command: a.command, ...(a.cwd !== undefined ? { cwd: a.cwd } : {}), ...(typeof a.timeout_seconds === 'number' ? { timeout: a.timeout_seconds * 1000 } : {}) }) },
  read_file: { name: 'Read', input: (a) => ({ file_path: a.path, ...(typeof a.start_line === 'number' ? { offset: a.start_line } : {}), ...(typeof a.end_line === 'number' && typeof a.start_line === 'number' ? { limit: a.end_line - a.start_line + 1 } : {}) }) },
  write_file: { name: 'Write', input: (a) => ({ file_path: a.path, content: a.content }) },
  edit_file: { name: 'Edit', input: (a) => ({ file_path: a.path, old_string: a.old_text, new_string: a.new_text, ...(a.replace_all !== undefined ? { replace_all: a.replace_all } : {}) }) },
  search_text: { name: 'Grep', input: (a) => ({ pattern: a.query, ...(a.path !== undefined ? { path: a.path } : {}) }) },
  list_files: { name: 'LS', input: (a) => ({ path: a.path ?? '.' }) },
  delegate: { name: 'Task', input: (a) => ({ ...a }) },
};

/** The table the README shows: Tally's tool, the name a Claude Code matcher uses. */
export const HOOK_TOOL_NAMES: ReadonlyArray<[tally: string, claude: string]> = Object.entries(CLAUDE_NAMES).map(([tally, c]) => [tally, c.name]);

/** The names a matcher is tested against: Tally's, then the Claude Code name when there is one. */
export function hookToolNames(toolName: string): string[] {
  const claude = CLAUDE_NAMES[toolName];
  return claude ? [toolName, claude.name] : [toolName];
}

/** `tool_name` and `tool_input` as a Claude Code hook reads them. */
export function hookToolCall(toolName: string, args: Record<string, unknown>): { tool_name: string; tool_input: Record<string, unknown> } {
  const claude = CLAUDE_NAMES[toolName];
  return claude ? { tool_name: claude.name, tool_input: claude.input(args) } : { tool_name: toolName, tool_input: args };
}
