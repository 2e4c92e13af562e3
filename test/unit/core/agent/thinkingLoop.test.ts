/**
 * The agent loop with thinking and the stop reasons that do not end a turn normally, over real HTTP
 * against the fake Anthropic server (which applies the API's thinking rules), fed with recorded
 * real responses where one exists.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession, STOP_NOTICES } from '../../../../src/core/agent/agentSession';
import type { AgentEvent } from '../../../../src/core/agent/events';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import type { Tool } from '../../../../src/core/tools/types';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { tempStore } from '../../../support/tempStore';
import { testRegistry } from '../../../support/toolRegistry';
import { ANTHROPIC_MESSAGES, sseChunks } from '../providers/conformance/replay';

const KEY = 'sk-ant-thinking-test';
const FIXED_VERSION: ToolDefinition = { name: 'fixed_version', description: 'Return a fixed test version string', inputSchema: { type: 'object', properties: {} }, source: 'builtin' };
let runs: string[] = [];
const tools: Tool[] = [{ definition: FIXED_VERSION, approval: 'read', execute: async () => (runs.push('fixed_version'), { output: '0.32a0' }) }];

const recorded = (file: string) => ({ type: 'raw' as const, chunks: sseChunks(ANTHROPIC_MESSAGES, file), headers: { 'content-type': 'text/event-stream' } });

/** An Anthropic stream from its events (for stop reasons no public recording covers). */
function stream(events: object[]) {
  return { type: 'raw' as const, chunks: events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`), headers: { 'content-type': 'text/event-stream' } };
}
const start = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 50, output_tokens: 1 } } };
const textBlock = (index: number, text: string) => [
  { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
  { type: 'content_block_stop', index },
];
const end = (stop: string) => [{ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 20 } }, { type: 'message_stop' }];

describe('agent loop: thinking and stop reasons (Anthropic)', function () {
  this.timeout(60_000);
  let server: FakeAnthropicServer;
  beforeEach(async () => {
    runs = [];
    server = await new FakeAnthropicServer({ apiKey: KEY }).start();
  });
  afterEach(async () => server.close());

  async function setup(options: { model?: string; reasoning?: { effort: 'low'; budgetTokens?: number }; maxOutputTokens?: number } = {}) {
    const env = await tempStore();
    const sessionId = (await env.store.createSession({ title: 'thinking' })).id;
    const counter = getTokenCounter();
    const maxOutputTokens = options.maxOutputTokens ?? 4_000;
    const session = await ContextSession.open({ store: env.store, sessionId, settings: withSettings({ contextWindow: 200_000, maxOutputTokens }), counter });
    const agent = new AgentSession({
      contextSession: session,
      provider: createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, retry: { maxAttempts: 1 } }),
      model: options.model ?? 'claude-haiku-4-5-20251001',
      maxOutputTokens,
      reasoning: options.reasoning,
      prompt: { prepare: async () => ({ system: [{ text: 'You are Tally.' }], tools: [FIXED_VERSION], fixed: { system: 5, skills: 0, tools: 20 }, sections: { system: [], tools: [], dynamic: [] } as never }) },
      tools: testRegistry({ tools }),
      sleep: async () => undefined,
    });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    return { env, contextSession: session, agent, events };
  }

  it('keeps the thinking of a tool loop with its signature and sends it back first and unchanged (recorded llm-anthropic run)', async () => {
    const { contextSession: session, agent, events } = await setup({ reasoning: { effort: 'low', budgetTokens: 1024 } });
    server.enqueue(recorded('thinking-tool-chain.1.sse'), recorded('thinking-tool-chain.2.sse'));
    assert.equal(await agent.send('Use the fixed_version tool. Then tell me the version and make one short joke about it. Think about it first.'), 'end_turn');
    assert.deepEqual(runs, ['fixed_version']);
    assert.equal(server.requests.length, 2, 'the fake server accepted both requests (it rejects a tool loop whose turn does not start with its thinking)');
    const first = server.requests[0].body;
    assert.deepEqual(first.thinking, { type: 'enabled', budget_tokens: 1024 });
    assert.ok(first.max_tokens > first.thinking.budget_tokens);
    const assistant = server.requests[1].body.messages[1];
    assert.equal(assistant.content[0].type, 'thinking');
    assert.ok(assistant.content[0].signature.startsWith('EoQDCm0IDhgCKkCDzGs2'));
    assert.equal(assistant.content[1].type, 'tool_use');
    const stored = session.messages.find((m) => m.role === 'assistant' && m.toolCalls?.length);
    assert.equal(stored?.reasoning?.[0].signature, assistant.content[0].signature);
    assert.ok((stored?.meta?.reasoningTokens ?? 0) > 10, 'the thinking is counted');
    assert.ok(events.some((e) => e.type === 'reasoning_delta'), 'the thinking streams to the chat');
    // The inspector's items of the second request say which message sent thinking back and what it counted.
    const usage = events.filter((e): e is Extract<AgentEvent, { type: 'usage' }> => e.type === 'usage');
    const item = usage[1].record.items.find((i) => i.messageId === stored?.id);
    assert.deepEqual(item?.badges, ['thinking']);
    assert.match(item?.preview ?? '', new RegExp(`^sends back 1 thinking block \\(${stored?.meta?.reasoningTokens} tokens\\)`));
    assert.ok((item?.tokens ?? 0) >= (stored?.meta?.reasoningTokens ?? 0), 'the item counts the thinking it sends');
  });

  it('a refusal ends the turn cleanly with a notice saying so (recorded vercel/ai refusal)', async () => {
    const { agent, events } = await setup();
    server.enqueue(recorded('refusal.chunks.txt'));
    assert.equal(await agent.send('Something the model declines.'), 'refusal');
    assert.deepEqual(events.filter((e) => e.type === 'notice').map((e) => (e as { message: string }).message), [STOP_NOTICES.refusal]);
    assert.equal(events.some((e) => e.type === 'error'), false);
  });

  it('pause_turn continues the turn: the paused answer is sent back and the model goes on', async () => {
    const { agent } = await setup();
    server.enqueue(stream([start, ...textBlock(0, 'Searching the web first.'), ...end('pause_turn')]), stream([start, ...textBlock(0, 'Done searching.'), ...end('end_turn')]));
    assert.equal(await agent.send('Research this.'), 'end_turn');
    assert.equal(server.requests.length, 2);
    const second = server.requests[1].body.messages;
    assert.deepEqual(second[second.length - 1], { role: 'assistant', content: [{ type: 'text', text: 'Searching the web first.', cache_control: { type: 'ephemeral' } }] });
  });

  it('pause_turn is bounded: after the limit the turn ends with a notice', async () => {
    const { agent, events } = await setup();
    for (let i = 0; i < 7; i++) server.enqueue(stream([start, ...textBlock(0, `Still going ${i}.`), ...end('pause_turn')]));
    assert.equal(await agent.send('Research this.'), 'end_turn');
    assert.equal(server.requests.length, 6);
    assert.ok(events.some((e) => e.type === 'notice' && e.message === STOP_NOTICES.tooManyPauses(5)));
  });

  it('max_tokens while writing a tool call: the cut call is not run and the chat offers to continue', async () => {
    const { contextSession: session, agent, events } = await setup();
    server.enqueue(
      stream([
        start,
        ...textBlock(0, 'Writing the file.'),
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_cut', name: 'fixed_version', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path": "src/a' } },
        { type: 'content_block_stop', index: 1 },
        ...end('max_tokens'),
      ]),
    );
    assert.equal(await agent.send('Write it.'), 'max_tokens');
    assert.deepEqual(runs, []);
    const notice = events.find((e) => e.type === 'notice');
    assert.deepEqual(notice, { type: 'notice', message: STOP_NOTICES.cutToolCall, action: 'continue' });
    const last = session.messages[session.messages.length - 1];
    assert.equal(last.role, 'assistant');
    assert.equal(last.toolCalls, undefined, 'no unanswered call is left in the history');
  });
});
