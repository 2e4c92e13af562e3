import * as vscode from 'vscode';
import { CommandCatalog } from '../core/commands/commandCatalog';
import type { McpPromptSource } from '../core/mcp/promptSource';
import { NodeCommandFileReader } from '../node/slashCommands/commandFileReader';

/**
 * The chat's slash commands in this window: the first workspace folder's command and prompt
 * files (while the workspace is trusted), the user's `~/.tally/commands`, and MCP prompts when a
 * source is given. Files are read when the list is asked for, so an edit shows at once.
 */
export function workspaceCommandCatalog(mcp?: McpPromptSource): CommandCatalog {
  const reader = new NodeCommandFileReader(() => ({ workspace: vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath }));
  return new CommandCatalog(reader, () => vscode.workspace.isTrusted, mcp);
}
