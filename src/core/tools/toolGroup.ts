import type { ToolDefinition } from '../model/tool';

/** Tally's own tools that act on the session (read_result, delegate, update_todos…) name this origin. */
const SESSION_ORIGIN = 'session';

/**
 * Where a tool comes from, in the words every surface uses for it: Configure Tools groups its
 * rows by this, and each request records it on the tool's schema, which the inspector's tokens by
 * tool groups by. One label, so that a group's figure is the same in both.
 */
export function toolGroupLabel(tool: Pick<ToolDefinition, 'source' | 'origin' | 'server'>): string {
  if (tool.server) return `MCP server "${tool.server}"`;
  if (tool.origin === SESSION_ORIGIN) return "Tally's session tools";
  if (tool.source === 'builtin') return 'built-in';
  if (tool.origin) return tool.origin;
  return tool.source === 'mcp' ? 'an MCP server' : tool.source;
}

/** The order of the groups in Configure Tools: built-in, the session's, then VS Code's and extensions', then each MCP server Tally runs. */
export function toolGroupRank(tool: Pick<ToolDefinition, 'source' | 'origin' | 'server'>): number {
  if (tool.server) return 3;
  if (tool.origin === SESSION_ORIGIN) return 1;
  return tool.source === 'builtin' ? 0 : 2;
}
