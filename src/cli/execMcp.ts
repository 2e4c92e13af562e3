/**
 * MCP servers in `tally exec`: read from the file `--mcp-config` names (VS Code's mcp.json format),
 * all started before the task is sent (each within its time limit; one that fails is reported and
 * left out), their tools asked for like any external tool, which in a run means refused unless
 * `--allow mcp` or `--allow mcp:SERVER` lets them run.
 */
import { readFile } from 'fs/promises';
import { homedir } from 'os';
import { resolve } from 'path';
import { McpServers } from '../core/mcp/mcpServers';
import { parseMcpJson } from '../core/mcp/serverConfig';
import { mcpStartGate } from '../core/mcp/startGate';
import { DEFAULT_MCP_LIMITS, sdkConnector } from '../node/mcp/sdkConnection';
import type { ExecArgs } from './execArgs';

export interface ExecMcp {
  servers: McpServers;
  /** The tool names `--allow mcp[:SERVER]` lets run unasked. */
  allowedTools(): string[];
}

/** Reads the file and starts its servers; throws with a message for the user when the file cannot be read. */
export async function startExecMcp(args: ExecArgs, folder: string, env: NodeJS.ProcessEnv, report: (line: string) => void, signal?: AbortSignal): Promise<ExecMcp | undefined> {
  if (!args.mcpConfig) return undefined;
  const file = resolve(args.cwd, args.mcpConfig);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`--mcp-config ${args.mcpConfig}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: ReturnType<typeof parseMcpJson>;
  try {
    parsed = parseMcpJson(text, 'file', { workspaceFolder: folder, userHome: env.HOME || homedir(), env });
  } catch (error) {
    throw new Error(`--mcp-config ${args.mcpConfig}: ${(error as Error).message}`);
  }
  for (const problem of parsed.problems) report(problem);
  for (const name of args.mcpAllowed.servers) if (!parsed.servers.some((s) => s.name === name)) throw new Error(`--allow mcp:${name}: no server of that name in ${args.mcpConfig}`);
  // The file is the user's own choice on the command line: its servers start without asking.
  const servers = new McpServers(() => parsed.servers, sdkConnector(DEFAULT_MCP_LIMITS), mcpStartGate({ trusted: () => true, remembered: () => undefined, remember: async () => undefined, ask: async () => false }));
  for (const status of await servers.startAll(signal)) {
    if (status.state === 'running') report(`MCP server "${status.name}": ${status.toolCount} tools`);
    else report(status.message ?? `MCP server "${status.name}" did not start`);
  }
  return {
    servers,
    allowedTools: () => servers.tools().filter((t) => args.mcpAllowed.all || args.mcpAllowed.servers.has(t.definition.origin ?? '')).map((t) => t.definition.name),
  };
}
