/**
 * The one way to make an agent, seen from outside: what each request offers and carries, for the
 * agent and for its subagents, against a fake OpenAI server on 127.0.0.1 and a real store.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../../src/core/accounting/tokenizer';
import type { AgentBuild, ToolSource } from '../../../../../src/core/agent/build/agentBuild';
import { buildAgent } from '../../../../../src/core/agent/build/buildAgent';
import { BUILTIN_TOOLS, DELEGATION, SESSION_TOOLS } from '../../../../../src/core/agent/build/toolSources';
import type { AgentEvent } from '../../../../../src/core/agent/events';
import { ContextSession } from '../../../../../src/core/context/contextSession';
import type { ToolDefinition } from '../../../../../src/core/model/tool';
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

const tool = (name: string, approval: Tool['approval'], source: ToolDefinition['source'] = 'extension'): Tool => ({
  definition: { name, description: `The ${name} tool`, inputSchema: { type: 'object' }, source },
  approval,
  execute: async () => ({ output: `${name} ran` }),
});

/** The parent delegates once a turn (its first request), then ends; a subagent answers at once. */
function delegatingOnce(request: RecordedRequest): FakeReply {
  if (!firstUser(request).startsWith('USER:')) return { type: 'reply', parts: [{ text: 'Sub report.' }] };
  const messages = request.body.messages as Array<{ role: string }>;
  const turnStart = messages.map((m) => m.role).lastIndexOf('user');
  const delegated = messages.slice(turnStart).some((m) => m.role === 'tool');
  return delegated ? { type: 'reply', parts: [{ text: 'Done.' }] } : { type: 'reply', parts: [{ toolCall: { name: 'delegate', arguments: JSON.stringify({ task: 'TASK look around' }) } }] };
}

const systemText = (request: RecordedRequest) => JSON.stringify((request.body.messages as Array<{ role: string }>).filter((m) => m.role === 'system'));

describe('building an agent', function () {
  this.timeout(60_000);
  const env = sessionPerTest('build');
  let server: FakeOpenAIServer | undefined;
  beforeEach(async () => (server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: delegatingOnce }).start()));
  afterEach(async () => server?.close());

  /** An agent's description on the test's session (or another), delegating to subagents, with `parts` changed. */
  async function build(parts: Partial<AgentBuild>, sessionId = env.sessionId()): Promise<AgentBuild> {
    const counter = getTokenCounter();
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 });
    const contextSession = await ContextSession.open({ store: env.store(), sessionId, settings, counter });
    const provider = createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server!.url, retry: { maxAttempts: 1, sleep: async () => undefined } });
    return {
      contextSession,
      store: env.store(),
      model: { provider, id: 'test-model', maxOutputTokens: 1_000, counter },
      settings,
      tools: [BUILTIN_TOOLS, SESSION_TOOLS, DELEGATION],
      environment: {
        workspace: () => new NodeWorkspace({ folders: [], trusted: true }),
        approvals: new SessionApprovals({ policy: () => ({ commands: 'ask', edits: 'ask' }), allowedTools: () => [], ask: async () => ({ approved: false }) }),
        limits: TEST_LIMITS,
      },
      subagents: {
        limits: () => DEFAULT_LIMITS,
        agents: async () => [],
        modelAllowed: (model) => model === 'test-model',
        openContext: (sessionId) => ContextSession.open({ store: env.store(), sessionId, settings, counter }),
      },
      ...parts,
    };
  }

  const parentRequest = () => server!.requests.find((r) => firstUser(r).startsWith('USER:'))!;
  const subRequest = () => server!.requests.find((r) => firstUser(r).startsWith('TASK'))!;

  it("offers the tools of every source in order, without those the user turned off, and a subagent only the parent's read-only ones", async () => {
    const external: ToolSource = { tools: () => [tool('lookup', 'read'), tool('turned_off', 'read'), tool('deploy', 'external')] };
    const offered = (definition: ToolDefinition) => definition.name !== 'turned_off' && definition.name !== 'write_file';
    const agent = buildAgent(await build({ tools: [BUILTIN_TOOLS, SESSION_TOOLS, DELEGATION, external], offered }));
    assert.equal(await agent.send('USER: look around'), 'end_turn');

    assert.deepEqual(offeredTools(parentRequest()), ['read_file', 'list_files', 'search_text', 'run_command', 'edit_file', 'read_result', 'compact_context', 'update_todos', 'delegate', 'lookup', 'deploy']);
    // The subagent: read-only tools the parent offers, its session tools bound to its own session; no delegate, no command, no tool the user turned off.
    assert.deepEqual(offeredTools(subRequest()), ['read_file', 'list_files', 'search_text', 'read_result', 'compact_context', 'update_todos', 'lookup']);
  });

  it('a tool the user turns off during a session is gone from the next request of the agent and of its subagents', async () => {
    let off = new Set<string>();
    const agent = buildAgent(await build({ tools: [BUILTIN_TOOLS, DELEGATION, { tools: () => [tool('lookup', 'read')] }], offered: (d) => !off.has(d.name) }));
    assert.equal(await agent.send('USER: first'), 'end_turn');
    assert.ok(offeredTools(subRequest()).includes('lookup'));
    off = new Set(['lookup', 'read_file']);
    server!.requests.length = 0;
    assert.equal(await agent.send('USER: again'), 'end_turn');
    assert.ok(!offeredTools(parentRequest()).includes('lookup'));
    assert.deepEqual(offeredTools(subRequest()), ['list_files', 'search_text']);
  });

  it('carries every contributor in the prompt; a subagent carries its role and the contributors shared with it, not the others', async () => {
    const agent = buildAgent(
      await build({
        context: [
          { instructions: async () => [{ path: '/repo/AGENTS.md', label: 'AGENTS.md', text: 'RULE: use pnpm.', followsActiveFile: false }], sharedWithSubagents: true },
          { instructions: async () => [{ path: 'todo', label: 'todo list', text: 'TODO: parent only.', followsActiveFile: false }] },
          { skills: async () => [{ name: 'release', description: 'How to cut a release', path: '/skills/release/SKILL.md', origin: 'user' }], skillText: async () => 'Tag, then push.' },
        ],
      }),
    );
    assert.equal(await agent.send('USER: look around'), 'end_turn');
    const parent = systemText(parentRequest());
    for (const text of ['RULE: use pnpm.', 'TODO: parent only.', 'release: How to cut a release']) assert.ok(parent.includes(text), `the parent carries ${text}`);
    const sub = systemText(subRequest());
    assert.ok(sub.includes('You are a subagent') && sub.includes('RULE: use pnpm.'), 'the subagent carries its role and the shared AGENTS.md');
    assert.ok(!sub.includes('TODO: parent only.') && !sub.includes('How to cut a release'), 'and nothing else');
  });

  it("reads an activated skill through the contributor that listed it, and says a source's note with tool_search", async () => {
    const read: string[] = [];
    const replies: FakeReply[] = [
      { type: 'reply', parts: [{ toolCall: { name: 'activate_skill', arguments: '{"name":"release"}' } }, { toolCall: { name: 'tool_search', arguments: '{"query":"deploy"}' } }] },
      { type: 'reply', parts: [{ text: 'Done.' }] },
    ];
    const agent = buildAgent(
      await build({
        tools: [BUILTIN_TOOLS, { tools: () => [], note: () => 'Tools from other extensions are off in Restricted Mode.' }],
        context: [
          { skills: async () => [{ name: 'other', description: 'Another', path: '/a/SKILL.md', origin: 'user' }], skillText: async (s) => (read.push(`first:${s.name}`), 'first') },
          { skills: async () => [{ name: 'release', description: 'Releases', path: '/b/SKILL.md', origin: 'workspace' }], skillText: async (s) => (read.push(`second:${s.name}`), 'Tag, then push.') },
        ],
        subagents: undefined,
      }),
    );
    server!.enqueue(...replies);
    assert.equal(await agent.send('USER: release it'), 'end_turn');
    assert.deepEqual(read, ['second:release']);
    const results = agent.contextSession.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.match(results[0], /Skill "release" is active/);
    assert.match(results[1], /Tools from other extensions are off in Restricted Mode\./);
    assert.ok(systemText(server!.requests[1]).includes('Tag, then push.'), 'the next request carries the skill');
  });

  it('tells the observers every event, a subagent\'s progress among them, and offers no delegate tool without subagents', async () => {
    const events: AgentEvent[] = [];
    const agent = buildAgent(await build({ observers: [(e) => events.push(e)] }));
    assert.equal(await agent.send('USER: look around'), 'end_turn');
    const kinds = events.map((e) => e.type);
    assert.equal(kinds[0], 'turn_start');
    assert.equal(kinds.at(-1), 'turn_end');
    assert.deepEqual([...new Set(events.flatMap((e) => (e.type === 'subagent' ? [e.progress.kind] : [])))], ['started', 'request', 'usage', 'ended']);

    server!.requests.length = 0;
    server!.enqueue({ type: 'reply', parts: [{ text: 'Alone.' }] });
    const alone = buildAgent(await build({ subagents: undefined }, (await env.store().createSession({ title: 'alone' })).id));
    assert.equal(await alone.send('USER: alone'), 'end_turn');
    assert.ok(!offeredTools(server!.requests[0]).includes('delegate'));
  });
});
