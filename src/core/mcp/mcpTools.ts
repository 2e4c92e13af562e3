import type { Tool } from '../tools/types';
import type { McpConnection, McpToolInfo } from './connection';

const MAX_INPUT_CHARS = 8_000;
const NAME_LIMIT = 64;

/** The name the model calls a server's tool by: `mcp_<server>_<tool>`, in the characters every provider accepts, unique among them. */
export function mcpToolName(server: string, tool: string, taken: Set<string>): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  const base = `mcp_${clean(server)}_${clean(tool)}`.slice(0, NAME_LIMIT);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, NAME_LIMIT - String(n).length - 1)}_${n}`;
  taken.add(name);
  return name;
}

/**
 * Servers' tools as registry entries of kind `external`: not offered in Restricted Mode, each call
 * asking on a card that names the tool and its server (unless the user allowed it), then sent to
 * the server; its result is raw output like any tool's, truncated and offloaded when recorded.
 */
export function mcpTools(servers: ReadonlyArray<{ server: string; tools: readonly McpToolInfo[] }>, connection: (server: string, signal?: AbortSignal) => Promise<McpConnection>): Tool[] {
  const taken = new Set<string>();
  return servers.flatMap(({ server, tools }) =>
    tools.map((info): Tool => {
      const name = mcpToolName(server, info.name, taken);
      return {
        definition: { name, description: info.description ?? `${info.name} (MCP server ${server})`, inputSchema: objectSchema(info.inputSchema), source: 'mcp', origin: server, server },
        approval: 'external',
        async execute(input, ctx) {
          const pretty = JSON.stringify(input, null, 2);
          const shown = pretty.length > MAX_INPUT_CHARS ? `${pretty.slice(0, MAX_INPUT_CHARS)}\n… (${pretty.length - MAX_INPUT_CHARS} more characters)` : pretty;
          await ctx.approve({ title: `MCP server "${server}", tool ${info.name}`, detail: `Input:\n${shown}`, allowForSession: name }, `running ${info.name} from the MCP server "${server}"`);
          try {
            const result = await (await connection(server, ctx.signal)).callTool(info.name, input, ctx.signal);
            return { output: result.text, isError: result.isError };
          } catch (error) {
            return { output: (error as Error).message, isError: true };
          }
        },
      };
    }),
  );
}

/** Providers want an object schema; a server's may lack `type` or say something else. */
function objectSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema || typeof schema !== 'object') return { type: 'object' };
  return schema.type === 'object' ? schema : { ...schema, type: 'object' };
}
