import * as vscode from 'vscode';
import type { McpStartDecisions } from '../core/mcp/startGate';

const KEY_PREFIX = 'tally.mcp.allowed:';

/**
 * Whether a workspace's MCP server may start, asked in a modal that shows its exact command line
 * (or address) and remembered in this workspace's own editor storage (never in a workspace file),
 * under that exact line: a changed line asks again. Nothing starts in Restricted Mode.
 */
export function editorStartDecisions(state: vscode.Memento): McpStartDecisions {
  return {
    trusted: () => vscode.workspace.isTrusted,
    remembered: (key) => state.get<boolean>(KEY_PREFIX + key),
    remember: async (key, allowed) => state.update(KEY_PREFIX + key, allowed),
    ask: async (server, shown) => {
      const what = server.transport === 'stdio' ? 'run this program' : 'connect to this address';
      const extra = server.transport === 'http' && Object.keys(server.headers).length > 0 ? `\n\nIt sends the headers ${Object.keys(server.headers).join(', ')}.` : '';
      const answer = await vscode.window.showWarningMessage(
        `This workspace's .vscode/mcp.json asks Tally to ${what} as the MCP server "${server.name}":`,
        { modal: true, detail: `${shown}${extra}\n\nAllow it only if you trust this repository. Your answer is remembered for this workspace and this exact ${server.transport === 'stdio' ? 'command line' : 'address'}.` },
        'Allow',
        "Don't Allow",
      );
      return answer === 'Allow' ? true : answer === "Don't Allow" ? false : undefined;
    },
  };
}
