import { mcpToolSource } from '../../../../src/core/mcp/mcpToolSource';
import * as assert from 'assert';
import * as path from 'path';
import { McpServers } from '../../../../src/core/mcp/mcpServers';
import { CommandCatalog } from '../../../../src/core/commands/commandCatalog';
import type { McpServerConfig } from '../../../../src/core/mcp/serverConfig';
import { MCP_RESTRICTED, mcpStartGate } from '../../../../src/core/mcp/startGate';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import { SessionApprovals } from '../../../../src/core/tools/sessionApprovals';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { DEFAULT_MCP_LIMITS, sdkConnector } from '../../../../src/node/mcp/sdkConnection';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { TEST_LIMITS } from '../../../support/toolRegistry';

const ROOT = path.resolve(__dirname, '../../../..');
const SERVER: McpServerConfig = { name: 'notes', transport: 'stdio', command: process.execPath, args: ['-r', path.join(ROOT, 'test/register.cjs'), path.join(ROOT, 'test/fakes/mcp/testServer.ts')], env: {}, origin: 'user' };

function setup(options: { trusted?: boolean; approve?: boolean; allowed?: string[] } = {}) {
  let trusted = options.trusted ?? true;
  const servers = new McpServers(() => [SERVER], sdkConnector({ ...DEFAULT_MCP_LIMITS, requestTimeoutMs: 5_000 }), mcpStartGate({ trusted: () => trusted, remembered: () => undefined, remember: async () => undefined, ask: async () => true }));
  const asked: ApprovalRequest[] = [];
  const approvals = new SessionApprovals({ policy: () => ({ commands: 'ask', edits: 'ask' }), allowedTools: () => options.allowed ?? [], ask: async (request) => (asked.push(request), { approved: options.approve ?? true }) });
  const registry = new ToolRegistry({ sources: [() => servers.tools()], workspace: () => new NodeWorkspace({ folders: [], trusted }), approvals, limits: TEST_LIMITS });
  const run = (name: string, args: unknown) => registry.run({ id: `c${Math.random()}`, name, arguments: JSON.stringify(args) }, { signal: new AbortController().signal, onApprovalNeeded: () => undefined, onApprovalResolved: () => undefined });
  return { servers, registry, asked, run, setTrusted: (t: boolean) => (trusted = t) };
}

describe('MCP servers as a tool source', function () {
  this.timeout(30_000);
  let current: McpServers | undefined;
  afterEach(async () => current?.dispose());

  it('offers no tool before a server started, then each tool under its server, with the server as its source', async () => {
    const s = setup();
    current = s.servers;
    assert.deepStrictEqual(s.registry.definitions(), []);
    assert.deepStrictEqual(s.servers.status(), [{ name: 'notes', transport: 'stdio', state: 'not started', message: undefined, toolCount: 0 }]);
    const [status] = await s.servers.startAll();
    assert.strictEqual(status.state, 'running');
    const echo = s.registry.definitions().find((d) => d.name === 'mcp_notes_echo');
    assert.deepStrictEqual({ source: echo?.source, origin: echo?.origin, description: echo?.description }, { source: 'mcp', origin: 'notes', description: 'Echoes its text.' });
    assert.strictEqual(status.toolCount, s.registry.definitions().length);
  });

  it('asks before a call on a card naming the tool and its server; a yes runs it, a no says so', async () => {
    const yes = setup({ approve: true });
    current = yes.servers;
    await yes.servers.startAll();
    assert.deepStrictEqual(await yes.run('mcp_notes_add', { a: 1, b: 2 }), { output: '3', isError: false, cancelled: false });
    assert.strictEqual(yes.asked[0].title, 'MCP server "notes", tool add');
    assert.strictEqual(yes.asked[0].kind, 'other');
    await yes.servers.dispose();
    const no = setup({ approve: false });
    current = no.servers;
    await no.servers.startAll();
    const denied = await no.run('mcp_notes_add', { a: 1, b: 2 });
    assert.deepStrictEqual({ output: denied.output, denied: denied.denied }, { output: 'The user denied running add from the MCP server "notes".', denied: true });
  });

  it('runs a tool the user allowed by name without asking', async () => {
    const s = setup({ allowed: ['mcp_notes_echo'] });
    current = s.servers;
    await s.servers.startAll();
    assert.strictEqual((await s.run('mcp_notes_echo', { text: 'hi' })).output, 'hi');
    assert.deepStrictEqual(s.asked, []);
  });

  it('reports a server that stopped mid-call, keeps its tools, and starts it again on the next call', async () => {
    const s = setup();
    current = s.servers;
    await s.servers.startAll();
    const crashed = await s.run('mcp_notes_crash', {});
    assert.strictEqual(crashed.isError, true);
    assert.match(String(crashed.output), /^The MCP server "notes" stopped during the call of crash: the program exited/);
    assert.strictEqual(s.servers.status()[0].state, 'failed');
    assert.ok(s.registry.definitions().some((d) => d.name === 'mcp_notes_echo'));
    assert.strictEqual((await s.run('mcp_notes_echo', { text: 'back' })).output, 'back');
    assert.strictEqual(s.servers.status()[0].state, 'running');
  });

  it('starts no program in Restricted Mode and says why', async () => {
    const s = setup({ trusted: false });
    current = s.servers;
    const [status] = await s.servers.startAll();
    assert.deepStrictEqual({ state: status.state, message: status.message }, { state: 'not allowed', message: MCP_RESTRICTED });
    // The tool source offers none of its tools and tool_search says why.
    const source = mcpToolSource(s.servers);
    assert.deepStrictEqual(source.tools({} as never), []);
    assert.strictEqual(source.note?.(), `MCP server "notes": ${MCP_RESTRICTED}`);
    await assert.rejects(s.servers.listPrompts().then(() => s.servers.getPrompt('notes', 'review', {})), new RegExp(MCP_RESTRICTED.replace(/[().]/g, '\\$&')));
  });

  it('lists prompts as slash commands and resources with their server', async () => {
    const s = setup();
    current = s.servers;
    assert.deepStrictEqual(await s.servers.listPrompts(), [{ name: 'review', description: 'Review a file.', arguments: [{ name: 'file', description: 'The file to review.', required: true }], server: 'notes', command: 'mcp.notes.review' }]);
    assert.deepStrictEqual((await s.servers.getPrompt('notes', 'review', { file: 'a.ts' })).messages, [{ role: 'user', text: 'Please review a.ts for bugs.' }]);
    assert.deepStrictEqual((await s.servers.listResources()).map((r) => `${r.server} ${r.uri}`), ['notes test://readme']);
    assert.match((await s.servers.readResource('notes', 'test://readme')).text, /npm test/);
  });

  it("the / list's source offers the running servers' prompts without starting or waiting for one; choosing one gets it with its arguments", async () => {
    const s = setup();
    current = s.servers;
    const catalog = new CommandCatalog({ read: async () => [] }, () => true, s.servers.listedPromptSource);
    const names = async () => (await catalog.list((t) => t.length)).map((c) => c.name);
    assert.deepStrictEqual(await names(), ['compact'], 'nothing is listed before a server runs');
    assert.deepStrictEqual(s.servers.listedResources(), []);
    assert.strictEqual(s.servers.status()[0]!.state, 'not started', 'listing started nothing');
    const listed = new Promise<void>((resolve) => {
      const watch = s.servers.onDidChange(() => {
        if (s.servers.listedPrompts().length && s.servers.listedResources().length) {
          watch.dispose();
          resolve();
        }
      });
    });
    await s.servers.startAll();
    await listed;
    assert.deepStrictEqual(await names(), ['compact', 'mcp.notes.review']);
    assert.deepStrictEqual(s.servers.listedResources().map((r) => `${r.server} ${r.uri} ${r.name}`), ['notes test://readme readme'], 'the # list reads the resources the same way');
    const run = await catalog.expand('/mcp.notes.review src/app.ts');
    assert.deepStrictEqual(run.kind === 'message' && { text: run.text, source: run.source }, { text: 'Please review src/app.ts for bugs.', source: 'MCP server notes, prompt review' });
    await assert.rejects(catalog.expand('/mcp.notes.review'), /needs file/);
  });
});
