import type { McpStartGate } from './mcpServers';
import { stdioCommandLine, type McpServerConfig } from './serverConfig';

export const MCP_RESTRICTED = 'MCP server programs are not started in Restricted Mode (the workspace is not trusted).';

/** What the gate needs from where it runs: trust, the remembered decisions, and a way to ask. */
export interface McpStartDecisions {
  trusted(): boolean;
  /** A decision remembered for this exact key (per workspace, in the editor's own storage, never a workspace file). */
  remembered(key: string): boolean | undefined;
  remember(key: string, allowed: boolean): Promise<void>;
  /** Shows the command line (or address) once and asks whether it may run; undefined when dismissed (asked again next time). */
  ask(server: McpServerConfig, shown: string): Promise<boolean | undefined>;
}

/** What the user is shown and the decision is kept under: the exact command line, or the address. */
export function mcpStartKey(server: McpServerConfig): { key: string; shown: string } {
  if (server.transport === 'stdio') {
    const shown = stdioCommandLine(server);
    return { key: `stdio\0${server.command}\0${server.args.join('\0')}\0${JSON.stringify(server.env)}\0${server.cwd ?? ''}`, shown };
  }
  return { key: `http\0${server.url}\0${JSON.stringify(server.headers)}`, shown: server.url };
}

/**
 * Which servers may start: none that is a program in Restricted Mode; the user's own (settings,
 * a file given to `tally exec`) at once; a workspace's only after the user allowed its exact
 * command line or address, asked once and remembered (a changed line asks again).
 */
export function mcpStartGate(decisions: McpStartDecisions): McpStartGate {
  const asking = new Map<string, Promise<boolean | undefined>>();
  return async (server) => {
    if (server.transport === 'stdio' && !decisions.trusted()) return MCP_RESTRICTED;
    if (server.origin !== 'workspace') return true;
    if (!decisions.trusted()) return MCP_RESTRICTED;
    const { key, shown } = mcpStartKey(server);
    const known = decisions.remembered(key);
    if (known !== undefined) return known ? true : declined(server);
    // Several uses at once ask once.
    let pending = asking.get(key);
    if (!pending) {
      pending = decisions.ask(server, shown);
      asking.set(key, pending);
      void pending.finally(() => asking.delete(key));
    }
    const answer = await pending;
    if (answer === undefined) return `The MCP server "${server.name}" from this workspace has not been allowed to start yet.`;
    await decisions.remember(key, answer);
    return answer ? true : declined(server);
  };
}

function declined(server: McpServerConfig): string {
  return `You declined to start the MCP server "${server.name}" from this workspace (its command line or address has not changed since).`;
}
