import type { ToolDefinition, ToolSource } from '../model/tool';

/** Deferred first: other extensions' and MCP tools, then skill tools; built-ins never. */
const DEFER_ORDER: ToolSource[] = ['mcp', 'extension', 'skill'];

export const TOOL_SEARCH_TOOL: ToolDefinition = {
  name: 'tool_search',
  description: 'Find tools that were left out of this request to save context, by keywords; matching tools become available for the next request.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  source: 'builtin',
  origin: 'session',
};

export interface ToolSelection {
  active: ToolDefinition[];
  deferred: ToolDefinition[];
  /** The note sent with the request when tools were deferred. */
  note?: string;
}

/**
 * Keeps tool definitions under `share` of the effective window: while they are over it, defer
 * the least recently used tool of the first category in DEFER_ORDER. Tools found with tool_search
 * (`promoted`) stay active. `tool_search` itself is added when anything is deferred.
 */
export function selectTools(args: {
  tools: ToolDefinition[];
  countTokens: (defs: ToolDefinition[]) => number;
  effectiveWindow: number;
  share: number;
  lastUsed: ReadonlyMap<string, number>;
  promoted: ReadonlySet<string>;
}): ToolSelection {
  const limit = args.effectiveWindow * args.share;
  const active = [...args.tools];
  const deferred: ToolDefinition[] = [];
  const searchCost = args.countTokens([TOOL_SEARCH_TOOL]);
  const over = () => args.countTokens(active) + (deferred.length ? searchCost : 0) > limit;
  for (const source of DEFER_ORDER) {
    const candidates = active
      .filter((t) => t.source === source && !args.promoted.has(t.name))
      .sort((a, b) => (args.lastUsed.get(a.name) ?? 0) - (args.lastUsed.get(b.name) ?? 0) || a.name.localeCompare(b.name));
    for (const tool of candidates) {
      if (!over()) break;
      active.splice(active.indexOf(tool), 1);
      deferred.push(tool);
    }
  }
  if (deferred.length === 0) return { active, deferred };
  return {
    active: [...active, TOOL_SEARCH_TOOL],
    deferred,
    note: `[${deferred.length} tool${deferred.length === 1 ? '' : 's'} deferred to save context. Use tool_search to find them.]`,
  };
}

/** Ranks deferred tools by how many query words appear in their name and description. */
export function searchTools(query: string, deferred: ToolDefinition[], limit = 5): ToolDefinition[] {
  const words = query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
  return deferred
    .map((tool) => {
      const name = tool.name.toLowerCase();
      const text = `${name} ${tool.description.toLowerCase()}`;
      const score = words.reduce((n, w) => n + (name.includes(w) ? 3 : 0) + (text.includes(w) ? 1 : 0), 0);
      return { tool, score };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .slice(0, limit)
    .map((r) => r.tool);
}
