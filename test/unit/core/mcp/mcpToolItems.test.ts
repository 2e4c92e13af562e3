import * as assert from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { requestContent } from '../../../../src/core/context/requestItems';
import type { McpConnection } from '../../../../src/core/mcp/connection';
import { mcpTools } from '../../../../src/core/mcp/mcpTools';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { withSettings } from '../../../../src/core/settings';
import { builtinTools } from '../../../../src/core/tools/builtin';
import type { ToolDefinition } from '../../../../src/core/model/tool';

const noConnection = (): Promise<McpConnection> => Promise.reject(new Error('not started in this test'));
const schema = (words: number) => ({ type: 'object', properties: { text: { type: 'string', description: 'word '.repeat(words) } } });

/** An extension's tool of the same size as an MCP tool, to see which is deferred first. */
const extensionTool: ToolDefinition = { name: 'ext_lookup', description: 'Looks things up', inputSchema: schema(200), source: 'extension', origin: 'some.extension' };

async function prepared(effectiveWindow: number) {
  const counter = getTokenCounter();
  await counter.load();
  const servers = [
    { server: 'notes', tools: [{ name: 'add', description: 'Adds a note', inputSchema: schema(200) }, { name: 'list', description: 'Lists notes', inputSchema: schema(200) }] },
    { server: 'web', tools: [{ name: 'fetch', description: 'Fetches a page', inputSchema: schema(200) }] },
  ];
  const definitions = [...builtinTools().map((t) => t.definition), extensionTool, ...mcpTools(servers, noConnection).map((t) => t.definition)];
  const prompt = new SessionPrompt({ counter, settings: withSettings({ contextWindow: 200_000, maxOutputTokens: 2_000 }), tools: () => definitions, instructions: async () => [], skills: async () => [] });
  const result = await prompt.prepare({ effectiveWindow, percentUsed: 0 });
  return requestContent({ messages: [], sections: result.sections, fixed: result.fixed, count: () => 0 }).items.filter((i) => i.kind === 'tool-schema');
}

describe("MCP servers' tools in the request and the inspector", () => {
  it('each schema item names its server as its source, so the inspector totals tools per server', async () => {
    const items = await prepared(190_000);
    const bySource = new Map<string, string[]>();
    for (const item of items) bySource.set(item.source ?? '', [...(bySource.get(item.source ?? '') ?? []), item.toolName ?? '']);
    assert.deepStrictEqual(bySource.get('MCP server "notes"'), ['mcp_notes_add', 'mcp_notes_list']);
    assert.deepStrictEqual(bySource.get('MCP server "web"'), ['mcp_web_fetch']);
    assert.ok(!items.some((i) => i.badges?.includes('deferred')), 'a roomy window sends every schema');
  });

  it("when schemas are over their share of the window, MCP servers' tools are deferred before an extension's", async () => {
    const items = await prepared(10_000);
    const deferred = items.filter((i) => i.badges?.includes('deferred')).map((i) => i.toolName);
    assert.ok(deferred.length > 0, `something is deferred in a small window: ${items.map((i) => `${i.toolName} ${i.tokens}`).join(', ')}`);
    assert.ok(deferred.every((n) => n?.startsWith('mcp_')), `only MCP tools are deferred while that is enough: ${deferred.join(', ')}`);
    assert.ok(!deferred.includes('ext_lookup'), "the extension's tool, as large as each MCP tool, stays");
    assert.ok(!deferred.some((n) => builtinTools().some((t) => t.definition.name === n)), 'built-in tools are never deferred');
  });
});
