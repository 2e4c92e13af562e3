import type { ToolSource } from '../agent/build/agentBuild';
import type { McpServers } from './mcpServers';

/**
 * The MCP servers' tools as one tool source of the agent builder (the chat, `tally exec` and
 * subagents read the same one). Its note, said with every tool_search answer, names the servers
 * whose tools are missing now and why (failed to start, not allowed, Restricted Mode).
 */
export function mcpToolSource(servers: McpServers): ToolSource {
  return {
    tools: () => servers.tools(),
    listed: () => servers.tools().map((t) => t.definition),
    note: () => {
      const missing = servers.status().filter((s) => (s.state === 'failed' || s.state === 'not allowed') && s.message);
      return missing.length > 0 ? missing.map((s) => `MCP server "${s.name}": ${s.message}`).join('\n') : undefined;
    },
  };
}
