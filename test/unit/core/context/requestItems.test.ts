import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import type { Tool } from '../../../../src/core/tools/types';
import type { RequestUsageRecord } from '../../../../src/core/model/records';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import type { InstructionPart } from '../../../../src/core/prompt/promptSections';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { requestItemText } from '../../../../src/core/context/itemText';
import { parseInspectorMessage } from '../../../../src/protocol/validate';
import { withSettings } from '../../../../src/core/settings';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { tempStore } from '../../../support/tempStore';
import { testRegistry } from '../../../support/toolRegistry';

const ECHO: ToolDefinition = { name: 'echo', description: 'Echo text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, source: 'builtin' };
const big = (name: string): ToolDefinition => ({ name, description: `${name} ${'word '.repeat(400)}`, inputSchema: {}, source: 'mcp', origin: 'MCP server tracker' });
const echo: Tool = { definition: ECHO, approval: 'read', execute: async (args) => ({ output: `echo:${String(args.text)}` }) };
const ROOT: InstructionPart = { path: '/ws/AGENTS.md', label: 'ws/AGENTS.md', text: 'Use tabs.', followsActiveFile: false };
const NESTED = (dir: string): InstructionPart => ({ path: `/ws/${dir}/AGENTS.md`, label: `ws/${dir}/AGENTS.md`, text: `Rules for ${dir}: ${'be careful. '.repeat(20)}`, followsActiveFile: true });

const sum = (record: RequestUsageRecord) => record.items.reduce((n, i) => n + i.tokens, 0);

describe('request items: every token of a request is an item', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer;
  beforeEach(async () => (server = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start()));
  afterEach(async () => server.close());

  async function liveSession(activeDir: { value: string }) {
    const env = await tempStore();
    const sessionId = (await env.store.createSession({ title: 'items' })).id;
    const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000, toolDeferralShare: 0.02 });
    const counter = getTokenCounter();
    const session = await ContextSession.open({ store: env.store, sessionId, settings, counter });
    const prompt = new SessionPrompt({
      counter,
      settings,
      tools: () => [ECHO, big('jira_search'), big('jira_create')],
      instructions: async () => [ROOT, NESTED(activeDir.value)],
      skills: async () => [{ name: 'review', description: 'Review a diff', path: '/skills/review/SKILL.md', origin: 'user' }],
    });
    const tools = testRegistry({ tools: () => [...prompt.tools(), echo], onCall: (name) => prompt.noteToolUse(name) });
    const agent = new AgentSession({ contextSession: session, provider: createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server.url, retry: { maxAttempts: 1 } }), model: 'm', maxOutputTokens: 2_000, prompt, tools, sleep: async () => undefined });
    return { env, sessionId, agent };
  }

  it('a live session: every stored request sums to its total, lists the prompt parts with their sources, and stores each text once', async () => {
    const active = { value: 'src' };
    const { env, sessionId, agent } = await liveSession(active);
    try {
      server.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'c1', name: 'echo', arguments: '{"text":"hi"}' } }] }, { type: 'reply', parts: [{ text: 'done' }] }, { type: 'reply', parts: [{ text: 'again' }] });
      assert.equal(await agent.send('echo hi'), 'end_turn');
      active.value = 'lib';
      assert.equal(await agent.send('and now?'), 'end_turn');
      await env.store.flush();
      const usage = await env.store.listRequestUsage(sessionId);
      assert.equal(usage.length, 3);
      for (const record of usage) assert.equal(sum(record), record.estimatedInputTokens, `request #${record.requestIndex}: items add up to the total`);

      const first = usage[0];
      const kinds = first.items.map((i) => `${i.kind}:${i.label ?? i.role}`);
      assert.equal(kinds[0], 'system-section:Base instructions');
      assert.ok(first.items.some((i) => i.kind === 'agents-md' && i.path === '/ws/AGENTS.md' && i.section === 'system'), 'the root AGENTS.md, with its path, in the stable prefix');
      assert.ok(first.items.some((i) => i.kind === 'agents-md' && i.path === '/ws/src/AGENTS.md' && i.section === 'dynamic'), 'the nested AGENTS.md in the dynamic part');
      assert.ok(first.items.some((i) => i.kind === 'skills-index'));
      const echoItem = first.items.find((i) => i.kind === 'tool-schema' && i.toolName === 'echo');
      assert.ok(echoItem && echoItem.tokens > 0 && echoItem.source === 'built-in');
      assert.equal(first.items.find((i) => i.toolName === 'tool_search')?.source, "Tally's session tools", 'Tally\'s own session tools say so');
      const deferred = first.items.filter((i) => i.badges.includes('deferred'));
      assert.ok(deferred.length >= 1 && deferred.every((i) => i.tokens === 0 && i.source === 'MCP server tracker'), 'deferred tools are listed with 0 tokens and their server');
      assert.ok(first.items.some((i) => i.kind === 'framing' && i.messageId === 'framing:tools'));
      assert.ok(first.items.some((i) => i.kind === 'framing' && i.messageId === 'framing:messages'));
      assert.ok(first.items.some((i) => i.kind === 'note' && i.messageId === 'note:deferred'));

      // Texts are stored once and found by hash.
      const texts = new Map<string, string>();
      let stored = 0;
      for (const record of usage) for (const [hash, text] of Object.entries(record.texts ?? {})) (texts.set(hash, text), stored++);
      assert.equal(stored, texts.size, 'no text is stored twice');
      const base = first.items[0];
      assert.match(texts.get(base.textHash!)!, /^You are Tally/);
      assert.equal(Object.keys(usage[1].texts ?? {}).length, 0, 'the second request of the turn repeats no text');
      assert.ok(Object.values(usage[2].texts ?? {}).some((t) => t.includes('Rules for lib')), 'the new nested AGENTS.md is stored with the request that first carried it');

      // Each item of a stored request opens to the exact text that was sent.
      const open = (requestIndex: number | undefined, itemId: string) => requestItemText({ store: env.store, sessionId, requestIndex, itemId, working: agent.contextSession.messages });
      assert.match((await open(2, 'system:base')).text, /^You are Tally/);
      assert.match((await open(2, 'agents:/ws/lib/AGENTS.md')).text, /^Instructions from ws\/lib\/AGENTS\.md[\s\S]*Rules for lib/);
      assert.match((await open(0, 'agents:/ws/src/AGENTS.md')).text, /Rules for src/, 'an earlier request keeps the text it carried');
      assert.match((await open(0, 'tool:echo')).text, /"name": "echo"/);
      assert.match((await open(0, 'framing:messages')).text, /4 tokens per message × 2 messages/);
      const toolCall = usage[1].items.find((i) => i.kind === 'assistant')!;
      assert.match((await open(1, toolCall.messageId)).text, /\[tool call echo \(c1\)\]\n\{"text":"hi"\}/);
      const user = agent.contextSession.messages.find((m) => m.kind === 'user')!;
      assert.equal((await open(undefined, user.id)).text, 'echo hi');
      const current = agent.contextSession.planRequest().items;
      assert.match((await requestItemText({ store: env.store, sessionId, itemId: 'framing:messages', working: agent.contextSession.messages, current })).text, /4 tokens per message × 6 messages/);
      // The next request's prompt parts (as the inspector lists them) open to the text the requests before it stored.
      const next = agent.contextSession.planNextRequest().items;
      assert.match((await requestItemText({ store: env.store, sessionId, itemId: 'agents:/ws/AGENTS.md', working: agent.contextSession.messages, current: next })).text, /^Project instructions \(ws\/AGENTS\.md\):\nUse tabs\.$/);
      assert.match((await requestItemText({ store: env.store, sessionId, itemId: 'system:base', working: agent.contextSession.messages, current: next })).text, /^You are Tally/);
      await assert.rejects(open(0, 'tool:nope'), /request #0 has no item "tool:nope"/);
      await assert.rejects(open(9, 'system:base'), /request #9 is not stored/);
    } finally {
      await env.dispose().catch(() => undefined);
    }
  });

  it('the inspector asks for an item text with a checked message', () => {
    assert.deepEqual(parseInspectorMessage({ type: 'requestItemText', requestIndex: 2, itemId: 'agents:/ws/AGENTS.md' }), { type: 'requestItemText', requestIndex: 2, itemId: 'agents:/ws/AGENTS.md' });
    assert.deepEqual(parseInspectorMessage({ type: 'requestItemText', itemId: 'u-1' }), { type: 'requestItemText', itemId: 'u-1' });
    assert.match((parseInspectorMessage({ type: 'requestItemText', requestIndex: -1, itemId: 'x' }) as { error: string }).error, /requestIndex/);
    assert.match((parseInspectorMessage({ type: 'requestItemText', itemId: '' }) as { error: string }).error, /itemId/);
    assert.match((parseInspectorMessage({ type: 'requestItemText', itemId: 'x', text: 'extra' }) as { error: string }).error, /text/);
  });

  it('the dynamic part follows the conversation, so nothing before it moves when it changes or the turn goes on', async () => {
    const { env, agent } = await liveSession({ value: 'src' });
    try {
      server.enqueue((req) => ({ type: 'reply', parts: [{ text: `answering: ${req.body.messages.at(-2).content}` }] }));
      assert.equal(await agent.send('please list the files'), 'end_turn');
      const messages = server.lastBody.messages as Array<{ role: string; content: string }>;
      assert.deepEqual(messages.at(-2), { role: 'user', content: 'please list the files' });
      assert.match(messages.at(-1)!.content, /Rules for src[\s\S]*tools? deferred to save context/);
    } finally {
      await env.dispose().catch(() => undefined);
    }
  });
});
