import type { RequestItem } from '../../src/protocol/records';
import { h } from '../ui/dom';
import { tokens } from '../ui/format';
import { countOf } from '../../src/protocol/wording';

/** An item as this view reads it: tool schemas (kind 'tool-schema') may say which source offered the tool. */
export type ToolItem = Pick<RequestItem, 'kind' | 'role' | 'tokens' | 'toolName'> & { source?: string };

export interface ToolRow {
  tool: string;
  source: string;
  offeredTokens: number;
  resultTokens: number;
  results: number;
}

export interface SourceGroup {
  source: string;
  tokens: number;
  rows: ToolRow[];
}

/** The group of tools whose origin the record does not say (records written before it was kept). */
const NO_SOURCE = 'Origin unknown (this record does not say which extension or server offered them)';

/**
 * Each offered tool's share of the request's tool framing (the item of kind 'framing' in the tools
 * section: a fixed number of tokens per offered tool), so a tool's figure here is what offering it
 * adds to every request — the figure Configure Tools shows for it. Deferred tools (0 tokens) have none.
 */
function framingShares(items: readonly ToolItem[]): Map<string, number> {
  const offered = items.filter((i) => i.kind === 'tool-schema' && i.toolName && i.tokens > 0).map((i) => i.toolName!);
  const framing = items.find((i) => i.kind === 'framing' && i.role === 'tools')?.tokens ?? 0;
  const shares = new Map<string, number>();
  if (!offered.length) return shares;
  const each = Math.floor(framing / offered.length);
  // What does not divide evenly (a record from before framing was per tool) goes to the first tools, so the table still adds up.
  offered.forEach((tool, i) => shares.set(tool, (shares.get(tool) ?? 0) + each + (i < framing - each * offered.length ? 1 : 0)));
  return shares;
}

/**
 * Tokens by tool, grouped by where the tool comes from (built-in, an extension, an MCP server):
 * what offering it adds (items of kind 'tool-schema' with their share of the tool framing) and its
 * results in the context. A result takes the source of its tool's schema when the request lists
 * one. Largest source first, largest tool first.
 */
export function toolTokenGroups(items: readonly ToolItem[]): SourceGroup[] {
  const shares = framingShares(items);
  const rows = new Map<string, ToolRow>();
  const row = (tool: string) => {
    let r = rows.get(tool);
    if (!r) rows.set(tool, (r = { tool, source: NO_SOURCE, offeredTokens: 0, resultTokens: 0, results: 0 }));
    return r;
  };
  for (const item of items) {
    if (!item.toolName) continue;
    if (item.kind === 'tool-schema') {
      const r = row(item.toolName);
      r.offeredTokens += item.tokens + (shares.get(item.toolName) ?? 0);
      shares.delete(item.toolName);
      if (item.source) r.source = item.source;
    } else if (item.role === 'tool') {
      const r = row(item.toolName);
      r.resultTokens += item.tokens;
      r.results += 1;
    }
  }
  const groups = new Map<string, SourceGroup>();
  for (const r of rows.values()) {
    const g = groups.get(r.source) ?? { source: r.source, tokens: 0, rows: [] };
    g.tokens += r.offeredTokens + r.resultTokens;
    g.rows.push(r);
    groups.set(r.source, g);
  }
  const sorted = [...groups.values()].sort((a, b) => b.tokens - a.tokens || a.source.localeCompare(b.source));
  for (const g of sorted) g.rows.sort((a, b) => b.offeredTokens + b.resultTokens - (a.offeredTokens + a.resultTokens) || a.tool.localeCompare(b.tool));
  return sorted;
}

/** The table of tokens by tool source and tool, for the next request. */
export function renderToolTokens(items: readonly ToolItem[], schemaTotal: number): HTMLElement {
  const groups = toolTokenGroups(items);
  const itemized = items.some((i) => i.kind === 'tool-schema');
  const note = itemized
    ? null
    : h('p', { class: 'hint', text: `Tool schemas: ${countOf(schemaTotal, 'token')} in all; this record does not list them tool by tool, so the table shows tool results only.` });
  if (groups.length === 0) return h('div', { class: 'tool-tokens' }, [note ?? h('p', { class: 'empty', text: 'No tools in this request.' })]);
  const body: HTMLElement[] = [];
  for (const g of groups) {
    // The group's Offered figure is the one Configure Tools shows beside the same group's name.
    const offered = g.rows.reduce((n, r) => n + r.offeredTokens, 0);
    const results = g.rows.reduce((n, r) => n + r.results, 0);
    body.push(h('tr', { class: 'tool-source', attrs: { 'data-tool-source': g.source } }, [
      h('th', { attrs: { scope: 'rowgroup' }, text: g.source }),
      h('td', { class: 'num', attrs: { 'data-figure': 'offered' }, text: itemized ? tokens(offered) : '—' }),
      h('td', { class: 'num', text: results ? `${tokens(g.tokens - offered)} (${results})` : '0' }),
      h('td', { class: 'num', text: tokens(g.tokens) }),
    ]));
    for (const r of g.rows) {
      body.push(h('tr', { attrs: { 'data-tool': r.tool } }, [
        h('td', { class: 'tool-name', text: r.tool }),
        h('td', { class: 'num', text: itemized ? tokens(r.offeredTokens) : '—' }),
        h('td', { class: 'num', text: r.results ? `${tokens(r.resultTokens)} (${r.results})` : '0' }),
        h('td', { class: 'num', text: tokens(r.offeredTokens + r.resultTokens) }),
      ]));
    }
  }
  return h('div', { class: 'tool-tokens' }, [
    h('table', { class: 'tool-table' }, [
      h('thead', {}, [h('tr', {}, [h('th', { text: 'Source / tool' }), h('th', { class: 'num', text: 'Offered', title: 'Its name, description and schema with its framing: what offering the tool adds to every request (the figure Configure Tools shows)' }), h('th', { class: 'num', text: 'Results (count)' }), h('th', { class: 'num', text: 'Total' })])]),
      h('tbody', {}, body),
    ]),
    note,
  ]);
}
