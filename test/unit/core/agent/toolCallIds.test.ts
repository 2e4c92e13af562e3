import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import type { ToolRunner } from '../../../../src/core/agent/toolRunner';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { onCallIdRepair, type CallIdRename } from '../../../../src/core/history/repairCallIds';
import type { Message } from '../../../../src/core/model/message';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { openStore } from '../../../../src/node/store';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { withSettings } from '../../../../src/core/settings';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { FakeReply } from '../../../fakes/scriptedServer';
import { tempStore } from '../../../support/tempStore';

const ECHO: ToolDefinition = { name: 'echo', description: 'Echo text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, source: 'builtin' };
const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000 });
const noRetry = { maxAttempts: 1, sleep: async () => undefined };
const echo: ToolRunner = { run: async (call) => ({ output: `echo:${String(JSON.parse(call.arguments).text)}` }) };

async function agentFor(store: SessionStore, sessionId: string, provider: ChatProvider) {
  const session = await ContextSession.open({ store, sessionId, settings, counter: getTokenCounter() });
  const agent = new AgentSession({
    contextSession: session,
    provider,
    model: 'test-model',
    maxOutputTokens: 2_000,
    prompt: { prepare: async () => ({ system: [{ text: 'You are a test.' }], tools: [ECHO], fixed: { system: 10, skills: 0, tools: 10 }, sections: { system: [], tools: [], dynamic: [] } }) },
    tools: echo,
    sleep: async () => undefined,
  });
  return { contextSession: session, agent };
}

/** One turn: the model calls echo with `text` under `id`, then answers. */
function echoTurn(id: string, text: string): FakeReply[] {
  return [
    { type: 'reply', parts: [{ toolCall: { id, name: 'echo', arguments: JSON.stringify({ text }) } }] },
    { type: 'reply', parts: [{ text: `done ${text}` }] },
  ];
}

/** Every call in the history paired with the output right after it, as `name(text) → output`. */
function pairs(messages: readonly Message[]): string[] {
  const out: string[] = [];
  messages.forEach((m, i) => {
    (m.toolCalls ?? []).forEach((call, k) => {
      const result = messages[i + 1 + k];
      assert.equal(result?.toolCallId, call.id, `the output after ${call.id} answers it`);
      out.push(`${JSON.parse(call.arguments).text} → ${result.content}`);
    });
  });
  return out;
}

function callIds(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
}

/** Tool-call ids and tool-result ids as an OpenAI request carries them. */
function openaiWireIds(body: any): { calls: string[]; results: string[] } {
  const messages = body.messages as any[];
  return {
    calls: messages.flatMap((m) => (m.tool_calls ?? []).map((c: any) => c.id)),
    results: messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
  };
}

function assertUnique(ids: string[], what: string): void {
  assert.equal(new Set(ids).size, ids.length, `${what} are unique: ${ids.join(', ')}`);
  assert.ok(ids.every((id) => id.length > 0), `${what} are not empty`);
}

describe('tool-call ids are unique per session', function () {
  this.timeout(60_000);
  let openai: FakeOpenAIServer;
  beforeEach(async () => (openai = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start()));
  afterEach(async () => openai.close());

  it('a server that sends call_0 every turn, then no id at all: every turn completes and each result pairs with its own call, on the wire and on disk', async () => {
    const env = await tempStore();
    const sessionId = (await env.store.createSession({ title: 'ids' })).id;
    const { agent } = await agentFor(env.store, sessionId, createOpenAIProvider({ apiKey: 'sk-test', baseUrl: openai.url, retry: noRetry }));
    openai.enqueue(...echoTurn('call_0', 'one'), ...echoTurn('call_0', 'two'), ...echoTurn('', 'three'), ...echoTurn('', 'four'), { type: 'reply', parts: [{ text: 'still here' }] });
    for (const text of ['one', 'two', 'three', 'four']) assert.equal(await agent.send(`echo ${text}`), 'end_turn', `turn "${text}" completes`);
    assert.equal(await agent.send('anything else?'), 'end_turn', 'the request after them is accepted');

    for (const request of openai.requests) {
      const wire = openaiWireIds(request.body);
      assertUnique(wire.calls, 'call ids on the wire');
      assert.deepEqual([...wire.results].sort(), [...wire.calls].sort(), 'every call on the wire is answered once');
    }
    const last = (openai.requests.at(-1)!.body as any).messages as any[];
    assert.deepEqual(last.filter((m) => m.role === 'tool').map((m) => m.content), ['echo:one', 'echo:two', 'echo:three', 'echo:four']);
    assert.ok(callIds(await env.store.loadTranscript(sessionId)).includes('call_0'), 'the provider id is kept where it was unique');

    await env.store.close();
    const reopened = await openStore(env.folder, { debounceMs: 5 });
    try {
      const transcript = await reopened.loadTranscript(sessionId);
      assertUnique(callIds(transcript), 'stored call ids');
      assert.deepEqual(pairs(transcript), ['one → echo:one', 'two → echo:two', 'three → echo:three', 'four → echo:four']);
    } finally {
      await reopened.close();
      await env.dispose().catch(() => undefined);
    }
  });

  it('a session stored with repeated ids (stuck before this fix) loads repaired, reports the repair, and its next request is valid', async () => {
    const env = await tempStore();
    const sessionId = (await env.store.createSession({ title: 'stuck' })).id;
    const at = (n: number) => 1_700_000_000_000 + n;
    const base = { agentVisible: true, userVisible: true } as const;
    const stuck: Message[] = [
      { ...base, id: 'u1', role: 'user', kind: 'user', content: 'read a', createdAt: at(1) },
      { ...base, id: 'a1', role: 'assistant', kind: 'assistant', content: '', toolCalls: [{ id: 'call_0', name: 'echo', arguments: '{"text":"read"}' }], createdAt: at(2) },
      { ...base, id: 't1', role: 'tool', kind: 'tool_result', content: 'echo:read', toolCallId: 'call_0', toolName: 'echo', createdAt: at(3) },
      { ...base, id: 'a2', role: 'assistant', kind: 'assistant', content: 'read it', createdAt: at(4) },
      { ...base, id: 'u2', role: 'user', kind: 'user', content: 'run b', createdAt: at(5) },
      { ...base, id: 'a3', role: 'assistant', kind: 'assistant', content: '', toolCalls: [{ id: 'call_0', name: 'echo', arguments: '{"text":"run"}' }], createdAt: at(6) },
      { ...base, id: 't3', role: 'tool', kind: 'tool_result', content: 'echo:run', toolCallId: 'call_0', toolName: 'echo', createdAt: at(7) },
      { ...base, id: 'a4', role: 'assistant', kind: 'assistant', content: 'ran it', createdAt: at(8) },
    ];
    await env.store.putMessages(sessionId, stuck);
    await env.store.close();
    const store = await openStore(env.folder, { debounceMs: 5 });
    const reports: Array<{ sessionId: string; renamed: readonly CallIdRename[] }> = [];
    const stop = onCallIdRepair((id, renamed) => reports.push({ sessionId: id, renamed }));
    try {
      const { contextSession: session, agent } = await agentFor(store, sessionId, createOpenAIProvider({ apiKey: 'sk-test', baseUrl: openai.url, retry: noRetry }));
      assert.deepEqual(reports, [{ sessionId, renamed: [{ messageId: 'a3', from: 'call_0', to: 'call_0_2' }] }]);
      assert.deepEqual(pairs(session.messages), ['read → echo:read', 'run → echo:run']);
      openai.enqueue(...echoTurn('call_0', 'again'));
      assert.equal(await agent.send('again'), 'end_turn');
      const wire = openaiWireIds(openai.requests[0].body);
      assertUnique(wire.calls, 'call ids on the wire');
      assert.deepEqual((openai.requests[0].body as any).messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content), ['echo:read', 'echo:run']);
      assert.deepEqual(pairs(session.messages), ['read → echo:read', 'run → echo:run', 'again → echo:again']);
    } finally {
      stop();
      await store.close();
      await env.dispose().catch(() => undefined);
    }
  });

  it('Anthropic: a repeated tool_use id gets a fresh id and the next request pairs every tool_result', async () => {
    const server = await new FakeAnthropicServer({ apiKey: 'sk-ant-test' }).start();
    const env = await tempStore();
    try {
      const sessionId = (await env.store.createSession({ title: 'anthropic ids' })).id;
      const { contextSession: session, agent } = await agentFor(env.store, sessionId, createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url, retry: noRetry }));
      server.enqueue(...echoTurn('toolu_0', 'one'), ...echoTurn('toolu_0', 'two'), { type: 'reply', parts: [{ text: 'ok' }] });
      assert.equal(await agent.send('one'), 'end_turn');
      assert.equal(await agent.send('two'), 'end_turn');
      assert.equal(await agent.send('three'), 'end_turn', 'the request after the repeated id is accepted');
      const messages = (server.requests.at(-1)!.body as any).messages as any[];
      const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
      assertUnique(uses, 'tool_use ids on the wire');
      assert.deepEqual(blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id), uses);
      assert.deepEqual(pairs(session.messages), ['one → echo:one', 'two → echo:two']);
    } finally {
      await env.dispose();
      await server.close();
    }
  });
});
