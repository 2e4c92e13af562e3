/**
 * Plan mode through the one agent builder: what each request offers and says, for the agent and its
 * subagents, against a fake OpenAI server on 127.0.0.1 and a real store.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../../src/core/accounting/tokenizer';
import type { AgentBuild, ToolSource } from '../../../../../src/core/agent/build/agentBuild';
import { buildAgent } from '../../../../../src/core/agent/build/buildAgent';
import { BUILTIN_TOOLS, DELEGATION, SESSION_TOOLS } from '../../../../../src/core/agent/build/toolSources';
import { ContextSession } from '../../../../../src/core/context/contextSession';
import type { ToolDefinition } from '../../../../../src/core/model/tool';
import type { AgentMode } from '../../../../../src/core/plan/planMode';
import { createOpenAIProvider } from '../../../../../src/core/providers/openai/openai';
import { withSettings } from '../../../../../src/core/settings';
import { SessionApprovals } from '../../../../../src/core/tools/sessionApprovals';
import type { Tool } from '../../../../../src/core/tools/types';
import { NodeWorkspace } from '../../../../../src/node/tools/nodeWorkspace';
import { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../../fakes/scriptedServer';
import { sessionPerTest } from '../../../../support/tempStore';
import { TEST_LIMITS } from '../../../../support/toolRegistry';
import { DEFAULT_LIMITS, firstUser, offeredTools } from '../subagents/subagentHarness';

const ran: string[] = [];
const tool = (name: string, approval: Tool['approval'], source: ToolDefinition['source'] = 'mcp'): Tool => ({
  definition: { name, description: `The ${name} tool`, inputSchema: { type: 'object' }, source },
  approval,
  execute: async () => (ran.push(name), { output: `${name} ran` }),
});
/** An MCP server's tools: one declared read-only, one that changes things. */
const mcp: ToolSource = { tools: () => [tool('mcp_search_issues', 'read'), tool('mcp_create_issue', 'external')] };

const bodyText = (request: RecordedRequest) => JSON.stringify(request.body.messages);

describe('plan mode', function () {
  this.timeout(60_000);
  const env = sessionPerTest('plan');
  let server: FakeOpenAIServer | undefined;
  beforeEach(async () => {
    ran.length = 0;
    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: () => ({ type: 'reply', parts: [{ text: 'Done.' }] }) }).start();
  });
  afterEach(async () => server?.close());

  async function build(mode: () => AgentMode): Promise<AgentBuild> {
    const counter = getTokenCounter();
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 });
    const contextSession = await ContextSession.open({ store: env.store(), sessionId: env.sessionId(), settings, counter });
    const provider = createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server!.url, retry: { maxAttempts: 1, sleep: async () => undefined } });
    return {
      contextSession,
      store: env.store(),
      model: { provider, id: 'test-model', maxOutputTokens: 1_000, counter },
      settings,
      tools: [BUILTIN_TOOLS, SESSION_TOOLS, DELEGATION, mcp],
      mode,
      environment: {
        workspace: () => new NodeWorkspace({ folders: [], trusted: true }),
        approvals: new SessionApprovals({ policy: () => ({ commands: 'always', edits: 'always' }), allowedTools: () => ['mcp_create_issue'], ask: async () => ({ approved: true }) }),
        limits: TEST_LIMITS,
      },
      subagents: {
        limits: () => DEFAULT_LIMITS,
        agents: async () => [{ name: 'fixer', description: 'Fixes things', instructions: 'You fix things.', tools: ['read_file', 'edit_file', 'run_command'], path: '/agents/fixer.md', origin: 'user' }],
        modelAllowed: (model) => model === 'test-model',
        openContext: (sessionId) => ContextSession.open({ store: env.store(), sessionId, settings, counter }),
      },
    };
  }

  it('offers only the tools declared as reads, says so in the prompt, and gives them back once the mode is act', async () => {
    let mode: AgentMode = 'plan';
    const agent = buildAgent(await build(() => mode));
    assert.equal(await agent.send('USER: how would you fix the parser?'), 'end_turn');
    const planning = server!.requests[0];
    assert.deepEqual(offeredTools(planning), ['read_file', 'list_files', 'search_text', 'read_result', 'compact_context', 'update_todos', 'delegate', 'mcp_search_issues']);
    assert.match(bodyText(planning), /You are in plan mode/);

    mode = 'act';
    server!.requests.length = 0;
    assert.equal(await agent.send('USER: go ahead'), 'end_turn');
    const acting = server!.requests[0];
    for (const name of ['run_command', 'edit_file', 'write_file', 'mcp_create_issue']) assert.ok(offeredTools(acting).includes(name), `${name} is back`);
    assert.doesNotMatch(bodyText(acting), /You are in plan mode/);
  });

  it('a call to a withheld tool runs nothing, even when the settings would allow it', async () => {
    server!.enqueue(
      { type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: '{"command":"touch x"}' } }, { toolCall: { name: 'mcp_create_issue', arguments: '{}' } }, { toolCall: { name: 'mcp_search_issues', arguments: '{}' } }] },
      { type: 'reply', parts: [{ text: '1. Fix it.' }] },
    );
    const agent = buildAgent(await build(() => 'plan'));
    assert.equal(await agent.send('USER: plan it'), 'end_turn');
    assert.deepEqual(ran, ['mcp_search_issues'], 'only the read-only tool ran');
    const results = agent.contextSession.messages.filter((m) => m.role === 'tool');
    assert.equal(results.filter((m) => m.meta?.isError).length, 2, 'the withheld calls are errors the model reads');
  });

  it("a subagent in plan mode gets no edit or command tool, even when its named agent lists them, and carries the mode's words", async () => {
    server!.enqueue(
      { type: 'reply', parts: [{ toolCall: { name: 'delegate', arguments: JSON.stringify({ task: 'TASK look around', agent: 'fixer' }) } }] },
      { type: 'reply', parts: [{ text: 'Sub report.' }] },
      { type: 'reply', parts: [{ text: '1. Fix it.' }] },
    );
    const agent = buildAgent(await build(() => 'plan'));
    assert.equal(await agent.send('USER: plan it'), 'end_turn');
    const sub = server!.requests.find((r) => firstUser(r).startsWith('TASK'));
    assert.ok(sub, 'the subagent ran');
    assert.deepEqual(offeredTools(sub!), ['read_file']);
    assert.match(bodyText(sub!), /You are in plan mode/);
  });
});
