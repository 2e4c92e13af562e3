import { parseMcpJson, parseMcpServers, type McpConfigResult, type McpVariables } from './serverConfig';

/** A workspace folder's `.vscode/mcp.json`, as read (undefined when there is none). */
export interface WorkspaceMcpFile {
  file: string;
  text: string | undefined;
  /** The folder `${workspaceFolder}` stands for in this file. */
  folder: string;
}

export interface ConfiguredMcpInput {
  /** The `tally.mcp.servers` value from the user's own settings (a workspace cannot set it). */
  user: unknown;
  workspaceFiles: readonly WorkspaceMcpFile[];
  trusted: boolean;
  vars: McpVariables;
}

/**
 * The servers Tally runs in the editor: the user's own (settings) first, then each workspace
 * folder's `.vscode/mcp.json` when the workspace is trusted (an untrusted workspace's files are not
 * read at all). A workspace server named like one already listed is left out, so a repository
 * cannot replace a server the user configured.
 */
export function configuredMcpServers(input: ConfiguredMcpInput): McpConfigResult {
  const result: McpConfigResult = { servers: [], problems: [] };
  const add = (parsed: McpConfigResult, where: string) => {
    for (const problem of parsed.problems) result.problems.push(`${where}: ${problem}`);
    for (const server of parsed.servers) {
      if (result.servers.some((s) => s.name === server.name)) result.problems.push(`${where}: MCP server "${server.name}" left out: a server of that name is already configured.`);
      else result.servers.push(server);
    }
  };
  if (input.user !== undefined && input.user !== null) add(parseMcpServers(input.user, 'user', input.vars), 'tally.mcp.servers');
  const files = input.workspaceFiles.filter((f) => f.text !== undefined);
  if (!input.trusted) {
    if (files.length > 0) result.problems.push(`MCP servers in ${files.map((f) => f.file).join(', ')} are not read in Restricted Mode (the workspace is not trusted).`);
    return result;
  }
  for (const f of files) {
    try {
      add(parseMcpJson(f.text!, 'workspace', { ...input.vars, workspaceFolder: f.folder }), f.file);
    } catch (error) {
      result.problems.push(`${f.file}: ${(error as Error).message}`);
    }
  }
  return result;
}
