import { strict as assert } from 'assert';
import { countToolDefinitions } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { requestContent } from '../../../../src/core/context/requestItems';
import { withSettings } from '../../../../src/core/settings';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { choiceFromPicked, NO_TOOL_CHOICE, offeredByChoice, parseToolChoice, pickedToolTokens, toolGroupTotals, toolPickerRows, type ToolChoice } from '../../../../src/core/tools/toolChoice';
import type { Tool } from '../../../../src/core/tools/types';
import { testRegistry } from '../../../support/toolRegistry';

/** What `vscode.lm.tools` holds in a real VS Code with Copilot and one MCP server, as Tally reads it. */
const lmDefinitions: ToolDefinition[] = [
  { name: 'vscode_searchExtensions_internal', description: 'Search the marketplace', inputSchema: { type: 'object' }, source: 'extension', origin: 'VS Code' },
  { name: 'vscode_editFile_internal', description: '', inputSchema: { type: 'object' }, source: 'extension', origin: 'VS Code' },
  { name: 'copilot_fetchWebPage', description: 'Fetch a web page', inputSchema: { type: 'object', properties: { url: { type: 'string' } } }, source: 'extension', origin: 'github.copilot-chat' },
  { name: 'mcp_github_search', description: 'Search GitHub issues', inputSchema: { type: 'object' }, source: 'mcp', origin: 'an MCP server' },
  { name: 'read_file', description: 'An extension tool that reuses a built-in name', inputSchema: { type: 'object' }, source: 'extension', origin: 'some.extension' },
];
const lmTools: Tool[] = lmDefinitions.map((definition) => ({ definition, approval: 'external', execute: async () => ({ output: 'ran' }) }));
const BUILTIN_NAMES = builtinTools().map((t) => t.definition.name);

/** The tools a session offers for a choice, through the real registry (as the agent factory wires it). */
function offered(choice: ToolChoice): ToolDefinition[] {
  const chosen = (tools: readonly Tool[]) => tools.filter((t) => offeredByChoice(t.definition, choice));
  return testRegistry({ tools: () => [...chosen(builtinTools()), ...chosen(lmTools)] }).definitions();
}

describe('the tools the model is offered (Configure Tools)', () => {
  it('by default: the built-in tools only, none of VS Code\'s internal tools, other extensions\' or MCP servers\'', () => {
    assert.deepEqual(offered(NO_TOOL_CHOICE).map((t) => t.name), BUILTIN_NAMES);
  });

  it('offers an extension or MCP tool once the user turned it on, and a built-in turned off is not offered', () => {
    const names = offered({ enabled: ['copilot_fetchWebPage', 'mcp_github_search'], disabled: ['run_command'] }).map((t) => t.name);
    assert.deepEqual(names, [...BUILTIN_NAMES.filter((n) => n !== 'run_command'), 'copilot_fetchWebPage', 'mcp_github_search']);
  });

  it('never offers an internal tool, even when a stored choice names it', () => {
    const stored = parseToolChoice({ enabled: ['vscode_editFile_internal', 'copilot_fetchWebPage', 42], disabled: 'all' });
    assert.deepEqual(stored, { enabled: ['copilot_fetchWebPage'], disabled: [] }, 'malformed parts are dropped, internal names too');
    assert.ok(!offered({ enabled: ['vscode_editFile_internal', 'vscode_searchExtensions_internal'], disabled: [] }).some((t) => /internal/.test(t.name)));
    assert.deepEqual(parseToolChoice('everything'), NO_TOOL_CHOICE, 'a value that is not a choice means the defaults');
  });

  it('lists each tool once with its group, source and its cost per request; internal ones not at all', async () => {
    const counter = getTokenCounter();
    await counter.load();
    const rows = toolPickerRows([...builtinTools().map((t) => t.definition), ...lmDefinitions], { enabled: ['mcp_github_search'], disabled: ['write_file'] }, (t) => countToolDefinitions([t], counter));
    assert.deepEqual(rows.map((r) => `${r.group}|${r.name}|${r.origin}|${r.picked}`), [
      ...BUILTIN_NAMES.map((n) => `built-in|${n}|built-in|${n !== 'write_file'}`),
      'an MCP server|mcp_github_search|an MCP server|true',
      'github.copilot-chat|copilot_fetchWebPage|github.copilot-chat|false',
    ]);
    const fetch = rows.find((r) => r.name === 'copilot_fetchWebPage')!;
    assert.equal(fetch.tokens, countToolDefinitions([lmDefinitions[2]], counter));
  });

  it("groups the tools of each MCP server Tally runs under that server, after VS Code's, with each group's offered tokens", () => {
    const own = (server: string, tool: string): ToolDefinition => ({ name: `mcp_${server}_${tool}`, description: tool, inputSchema: { type: 'object' }, source: 'mcp', origin: server, server });
    const rows = toolPickerRows([own('zeta', 'ping'), ...builtinTools().map((t) => t.definition), own('notes', 'add'), ...lmDefinitions, own('notes', 'list')], { enabled: ['mcp_notes_add', 'mcp_notes_list', 'mcp_github_search'], disabled: [] }, (t) => t.name.length);
    assert.deepEqual(
      rows.filter((r) => r.group !== 'built-in').map((r) => `${r.group}|${r.name}`),
      ['an MCP server|mcp_github_search', 'github.copilot-chat|copilot_fetchWebPage', 'MCP server "notes"|mcp_notes_add', 'MCP server "notes"|mcp_notes_list', 'MCP server "zeta"|mcp_zeta_ping'],
    );
    const totals = toolGroupTotals(rows).filter((t) => t.group !== 'built-in');
    assert.deepEqual(totals, [
      { group: 'an MCP server', tools: 1, offeredTokens: 'mcp_github_search'.length },
      { group: 'github.copilot-chat', tools: 1, offeredTokens: 0 },
      { group: 'MCP server "notes"', tools: 2, offeredTokens: 'mcp_notes_add'.length + 'mcp_notes_list'.length },
      { group: 'MCP server "zeta"', tools: 1, offeredTokens: 0 },
    ]);
  });

  it('the picker\'s selection becomes the choice, keeping tools that are not listed right now', () => {
    const rows = toolPickerRows([...builtinTools().map((t) => t.definition), ...lmDefinitions], NO_TOOL_CHOICE, () => 1);
    const choice = choiceFromPicked(rows, new Set(['read_file', 'list_files', 'copilot_fetchWebPage']), { enabled: ['tool_of_a_disabled_extension'], disabled: [] });
    assert.deepEqual(choice.enabled, ['tool_of_a_disabled_extension', 'copilot_fetchWebPage']);
    assert.deepEqual(choice.disabled, BUILTIN_NAMES.filter((n) => n !== 'read_file' && n !== 'list_files'));
  });

  it("lists Tally's session tools as always offered: unticking one changes no choice, and the picked figure counts them", () => {
    const session = [{ name: 'read_result', description: 'Read a stored result', inputSchema: { type: 'object' }, source: 'builtin', origin: 'session' } as ToolDefinition];
    const rows = toolPickerRows([...builtinTools().map((t) => t.definition), ...session], NO_TOOL_CHOICE, () => 10, new Set(['read_result']));
    const row = rows.find((r) => r.name === 'read_result')!;
    assert.deepEqual([row.group, row.picked, row.alwaysOffered], ["Tally's session tools", true, true]);
    const picked = new Set(['read_file']);
    assert.deepEqual(choiceFromPicked(rows, picked).disabled, BUILTIN_NAMES.filter((n) => n !== 'read_file'), 'read_result is never turned off');
    assert.equal(pickedToolTokens(rows, picked), 20, 'read_file and read_result');
  });

  it('a request lists each offered schema once, and the tool framing counts exactly the schemas sent', async () => {
    const counter = getTokenCounter();
    await counter.load();
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
    const registry = testRegistry({ tools: () => [...builtinTools(), ...lmTools.filter((t) => offeredByChoice(t.definition, { enabled: ['read_file', 'copilot_fetchWebPage'], disabled: [] }))] });
    const prompt = new SessionPrompt({ counter, settings, tools: () => registry.definitions(), instructions: async () => [], skills: async () => [] });
    const prepared = await prompt.prepare({ effectiveWindow: 30_000, percentUsed: 0 });
    const items = requestContent({ messages: [], sections: prepared.sections, fixed: prepared.fixed, count: () => 0 }).items;
    const schemas = items.filter((i) => i.kind === 'tool-schema');
    assert.deepEqual(schemas.map((i) => i.toolName), [...BUILTIN_NAMES, 'copilot_fetchWebPage'], 'a name shared with a built-in is listed once, as the built-in a call runs');
    const framing = items.find((i) => i.messageId === 'framing:tools')!;
    assert.match(framing.preview, new RegExp(`× ${schemas.length} tools sent$`));
    assert.equal(prepared.tools.length, schemas.length, 'the schemas listed are the schemas sent');
    // Each schema is recorded under the group Configure Tools lists its tool in: a group's figure is one figure on both.
    const rows = toolPickerRows(registry.definitions(), { enabled: ['read_file', 'copilot_fetchWebPage'], disabled: [] }, () => 1);
    assert.deepEqual(schemas.map((i) => `${i.toolName}|${i.source}`), schemas.map((i) => `${i.toolName}|${rows.find((r) => r.name === i.toolName)?.group}`));
    assert.deepEqual([...new Set(schemas.map((i) => i.source))], ['built-in', 'github.copilot-chat']);
  });
});
