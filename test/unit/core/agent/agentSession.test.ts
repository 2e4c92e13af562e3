import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { sessionTools } from '../../../../src/core/tools/sessionTools';
import type { Tool } from '../../../../src/core/tools/types';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { withSettings, type ContextSettings } from '../../../../src/core/settings';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { tempStore } from '../../../support/tempStore';
import { testRegistry } from '../../../support/toolRegistry';

const ECHO: ToolDefinition = { name: 'echo', description: 'Echo text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, source: 'builtin' };
const noRetry = { maxAttempts: 1, sleep: async () => undefined };

/** Called when the `wait` tool starts running, so a test can cancel while it runs. */
let waitStarted: () => void = () => undefined;

/** Tools for tests: echo returns its text (large when asked); wait blocks until cancelled; deny_me asks, and the user says no. */
const testTools: Tool[] = [
  {
    definition: ECHO,
    approval: 'read',
    execute: async (args) => ({ output: args.big ? `${args.text}\n`.repeat(Number(args.big)) : String(args.text) }),
  },
  {
    definition: { ...ECHO, name: 'wait' },
    approval: 'read',
    async execute(_args, ctx) {
      waitStarted();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      return { output: 'cancelled', isError: true };
    },
  },
  {
    definition: { ...ECHO, name: 'deny_me' },
    approval: 'command',
    async execute(_args, ctx) {
      await ctx.approve({ title: 'Run the dangerous thing' }, 'running this command');
      return { output: 'ran' };
    },
  },
];

async function setup(provider: ChatProvider, settings: ContextSettings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 })) {
  const env = await tempStore();
  const sessionId = (await env.store.createSession({ title: 'agent' })).id;
  const counter = getTokenCounter();
  const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter });
  let fixed = { system: 0, skills: 0, tools: 0 };
  const session = sessionTools(env.store, () => contextSession);
  const prompt: SessionPrompt = new SessionPrompt({ counter, settings, tools: () => [ECHO, ...session.map((t) => t.definition)], instructions: async () => 'Always run the tests.', skills: async () => [] });
  const tools = testRegistry({ tools: () => [...prompt.tools(), ...testTools, ...session], onCall: (name) => prompt.noteToolUse(name) });
  const agent = new AgentSession({
    contextSession,
    provider,
    model: 'test-model',
    maxOutputTokens: 2_000,
    prompt: { prepare: async (a) => { const p = await prompt.prepare(a); fixed = p.fixed; return p; } },
    tools,
    sleep: async () => undefined,
  });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { env, contextSession, agent, events };
}

describe('agent loop', function () {
  this.timeout(60_000);
  let openai: FakeOpenAIServer;
  beforeEach(async () => (openai = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start()));
  afterEach(async () => openai.close());

  const provider = () => createOpenAIProvider({ apiKey: 'sk-test', baseUrl: openai.url, retry: noRetry });

  it('runs a multi-tool turn with parallel calls, records results and usage, and ends on text', async () => {
    const { env, contextSession: session, agent, events } = await setup(provider());
    openai.enqueue(
      { type: 'reply', parts: [{ text: 'Echoing twice.' }, { toolCall: { name: 'echo', arguments: '{"text":"one"}' } }, { toolCall: { name: 'echo', arguments: '{"text":"two"}' } }], usage: { input: 900, output: 20 } },
      (req) => ({ type: 'reply', parts: [{ text: `I saw ${(req.body.messages as unknown[]).length} messages.` }], usage: { input: 950, output: 8 } }),
    );
    assert.equal(await agent.send('Echo one and two.'), 'end_turn');
    const second = openai.requests[1].body.messages as Array<{ role: string; content: string }>;
    assert.deepEqual(second.filter((m) => m.role === 'tool').map((m) => m.content), ['one', 'two']);
    assert.deepEqual(validateHistory(session.planRequest().messages), []);
    const usage = await env.store.listRequestUsage(session.sessionId);
    assert.deepEqual(usage.map((u) => u.reportedInputTokens), [900, 950]);
    assert.ok(usage[0].components.tools > 0 && usage[0].components.system > 0);
    assert.deepEqual(events.filter((e) => e.type === 'tool_result').length, 2);
    assert.ok(events.some((e) => e.type === 'text_delta'));
    await env.dispose();
  });

  it('a denied approval reaches the model as a tool result, not an error loop', async () => {
    const { env, agent, contextSession: session } = await setup(provider());
    openai.enqueue(
      { type: 'reply', parts: [{ toolCall: { name: 'deny_me', arguments: '{}' } }] },
      { type: 'reply', parts: [{ text: 'Understood, I will not run it.' }] },
    );
    assert.equal(await agent.send('Run the dangerous thing.'), 'end_turn');
    const tool = (openai.requests[1].body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool');
    assert.equal(tool?.content, 'The user denied running this command.');
    assert.equal(openai.requests.length, 2);
    const stored = (await env.store.loadTranscript(session.sessionId)).find((m) => m.role === 'tool');
    assert.equal(stored?.meta?.denied, true, 'the denial is marked on the result, not only said in its text');
    await env.dispose();
  });

  it('an invalid JSON argument string gets an error result the model can read', async () => {
    const { env, agent } = await setup(provider());
    openai.enqueue(
      { type: 'reply', parts: [{ toolCall: { name: 'read_result', arguments: '{"ref_id": ' } }] },
      { type: 'reply', parts: [{ text: 'Sorry.' }] },
    );
    await agent.send('Read it.');
    const tool = (openai.requests[1].body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool');
    assert.match(tool?.content ?? '', /Invalid arguments for read_result: the arguments are not valid JSON/);
    await env.dispose();
  });

  it('retries a dropped stream without storing the cut tool call', async () => {
    const { env, contextSession: session, agent, events } = await setup(provider());
    openai.enqueue(
      { type: 'reply', parts: [{ text: 'Let me ' }, { toolCall: { name: 'echo', arguments: '{"text":"cut"}' } }], fault: { afterFirst: 'tool_args', action: 'reset' } },
      { type: 'reply', parts: [{ text: 'Done after the retry.' }] },
    );
    assert.equal(await agent.send('Go.'), 'end_turn');
    assert.ok(events.some((e) => e.type === 'retry'));
    const transcript = await env.store.loadTranscript(session.sessionId);
    assert.ok(!transcript.some((m) => m.toolCalls?.length), 'no orphan tool call was stored');
    assert.equal(transcript[transcript.length - 1].content, 'Done after the retry.');
    await env.dispose();
  });

  it('recovers from "context too long" by compacting and retrying once', async () => {
    const { env, contextSession: session, agent, events } = await setup(provider());
    for (let i = 0; i < 12; i++) {
      openai.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: JSON.stringify({ text: `output line ${i}`, big: 300 }) } }] });
    }
    openai.enqueue({ type: 'reply', parts: [{ text: 'Filled.' }] });
    await agent.send('Fill the context.');
    const before = session.measure().used;
    openai.enqueue({ type: 'context_too_long' }, { type: 'reply', parts: [{ text: 'Fits now.' }] });
    assert.equal(await agent.send('Continue.'), 'end_turn');
    const completes = events.filter((e) => e.type === 'compaction' && e.event.type === 'complete');
    assert.ok(completes.length >= 1);
    const history = await env.store.listCompactionEvents(session.sessionId);
    assert.equal(history[history.length - 1].trigger, 'overflow');
    assert.ok(session.measure().used < before);
    await env.dispose();
  });

  it('cancellation mid-tool leaves every call answered', async () => {
    const { env, contextSession: session, agent } = await setup(provider());
    openai.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'wait', arguments: '{}' } }, { toolCall: { name: 'echo', arguments: '{"text":"never"}' } }] });
    const started = new Promise<void>((resolve) => (waitStarted = resolve));
    const turn = agent.send('Wait forever.');
    await started;
    agent.cancel();
    assert.equal(await turn, 'cancelled');
    assert.deepEqual(validateHistory(session.planRequest().messages), []);
    const transcript = await env.store.loadTranscript(session.sessionId);
    assert.equal(transcript.filter((m) => m.role === 'tool').length, 2, 'both calls have an output');
    assert.ok(transcript.some((m) => m.kind === 'aborted'));
    await env.dispose();
  });

  it('cancellation mid-stream keeps the text already shown and no partial call', async () => {
    const { env, contextSession: session, agent, events } = await setup(provider());
    openai.enqueue({ type: 'reply', parts: [{ text: 'Thinking about it' }, { toolCall: { name: 'echo', arguments: '{"text":"x"}' } }], fault: { afterFirst: 'text', action: 'stall' } });
    const firstText = new Promise<void>((resolve) => agent.on((e) => e.type === 'text_delta' && resolve()));
    const turn = agent.send('Go slowly.');
    await firstText;
    agent.cancel();
    assert.equal(await turn, 'cancelled');
    const transcript = await env.store.loadTranscript(session.sessionId);
    const shown = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    assert.equal(transcript[transcript.length - 1].content, `${shown}\n[cancelled]`, 'the stored text is what the user saw');
    assert.deepEqual(validateHistory(session.planRequest().messages), []);
    await env.dispose();
  });

  it('a 300-request session with large outputs never exceeds the window, keeps pairs, and resumes compacted', async () => {
    const settings = withSettings({ contextWindow: 16_000, maxOutputTokens: 1_000 });
    const { env, contextSession: session, agent } = await setup(provider(), settings);
    for (let turn = 0; turn < 50; turn++) {
      for (let i = 0; i < 5; i++) openai.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: JSON.stringify({ text: `turn ${turn} step ${i} output`, big: 150 + i * 40 }) } }] });
      openai.enqueue({ type: 'reply', parts: [{ text: `Turn ${turn} done.` }] });
      assert.equal(await agent.send(`Task ${turn}`), 'end_turn');
    }
    const usage = await env.store.listRequestUsage(session.sessionId);
    assert.equal(usage.length, 300);
    for (const u of usage) assert.ok(u.estimatedInputTokens <= 15_000, `request ${u.requestIndex}: ${u.estimatedInputTokens}`);
    assert.deepEqual(validateHistory(session.planRequest().messages), []);
    assert.ok((await env.store.listCompactionEvents(session.sessionId)).length > 0);
    await env.store.flush();
    const resumed = await ContextSession.open({ store: env.store, sessionId: session.sessionId, settings, counter: getTokenCounter() });
    assert.deepEqual(resumed.messages.map((m) => m.id), session.messages.map((m) => m.id));
    await env.dispose();
  });
});

describe('prompt caching', function () {
  this.timeout(30_000);
  it('two consecutive Anthropic requests share a byte-identical prefix up to the last cache breakpoint', async () => {
    const server = await new FakeAnthropicServer({ apiKey: 'sk-ant-test' }).start();
    try {
      const { env, agent } = await setup(createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url, retry: noRetry }));
      server.enqueue(
        { type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: '{"text":"a"}' } }] },
        { type: 'reply', parts: [{ text: 'ok' }] },
      );
      await agent.send('Say a.');
      const [first, second] = server.requests.map((r) => r.body as { system: unknown; tools: unknown; messages: unknown[] });
      assert.equal(JSON.stringify(second.system), JSON.stringify(first.system), 'system blocks identical');
      assert.equal(JSON.stringify(second.tools), JSON.stringify(first.tools), 'tools identical');
      const strip = (m: unknown) => JSON.stringify(m).replace(/,"cache_control":\{"type":"ephemeral"\}/g, '');
      assert.equal(strip(second.messages[0]), strip(first.messages[0]), 'the first turn is unchanged');
      const breakpoints = JSON.stringify(second).match(/cache_control/g)?.length ?? 0;
      assert.ok(breakpoints >= 1 && breakpoints <= 4);
      await env.dispose();
    } finally {
      await server.close();
    }
  });
});
