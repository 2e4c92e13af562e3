import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { PreparedPrompt } from '../../../../src/core/agent/agentSession';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import type { InstructionPart } from '../../../../src/core/prompt/promptSections';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { toOpenAIBody } from '../../../../src/core/providers/openai/openaiRequest';
import type { ProviderRequest } from '../../../../src/core/providers/types';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

const TOOL: ToolDefinition = { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, source: 'builtin' };
const part = (path: string, text: string, followsActiveFile: boolean): InstructionPart => ({ path, label: path, text, followsActiveFile });

/** The serialized body up to and including the last block that carries a cache breakpoint. */
function upToLastBreakpoint(body: Record<string, unknown>): string {
  const json = JSON.stringify(body);
  const at = json.lastIndexOf('"cache_control"');
  assert.ok(at > 0, 'the body has a cache breakpoint');
  return json.slice(0, json.indexOf('}', at) + 1);
}

describe('a stable prefix: switching the active file changes only what follows the last cache breakpoint', function () {
  this.timeout(30_000);

  async function twoRequests(extra: (session: ContextSession) => Promise<void> = async () => undefined) {
    const env = await tempStore();
    const settings = withSettings({ contextWindow: 64_000, maxOutputTokens: 4_000 });
    const counter = getTokenCounter();
    const session = await ContextSession.open({ store: env.store, sessionId: (await env.store.createSession({ title: 'prefix' })).id, settings, counter });
    let active = 'src/a.ts';
    const prompt = new SessionPrompt({
      counter,
      settings,
      tools: () => [TOOL],
      // The root file is always there; the nested one follows the active editor's file.
      instructions: async () => [part('/ws/AGENTS.md', 'Use tabs.', false), part(`/ws/${active.split('/')[0]}/AGENTS.md`, `Rules for ${active.split('/')[0]}.`, true)],
      skills: async () => [],
    });
    await session.appendUser('first question');
    await session.appendAssistant('first answer');
    await extra(session);
    await session.appendUser('second question');
    const build = async (): Promise<ProviderRequest> => {
      const request = await session.nextRequest((room) => prompt.prepare(room));
      const prepared = request.prompt as PreparedPrompt;
      return { model: 'm', system: prepared.system, messages: request.plan.messages, tools: prepared.tools, maxOutputTokens: 1_000 };
    };
    const before = await build();
    active = 'lib/b.ts';
    const after = await build();
    await env.dispose();
    return { before, after };
  }

  it('Anthropic Messages: the body is byte-identical up to the last cache_control, which ends with the user\'s words; the dynamic part follows', async () => {
    const { before, after } = await twoRequests();
    const [a, b] = [toAnthropicBody(before), toAnthropicBody(after)];
    assert.notEqual(JSON.stringify(a), JSON.stringify(b), 'the requests differ (the nested AGENTS.md changed)');
    assert.equal(upToLastBreakpoint(b), upToLastBreakpoint(a));
    assert.deepEqual(b.tools, a.tools);
    const turns = b.messages as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
    const last = turns.at(-1)!;
    assert.equal(last.role, 'user');
    assert.match(last.content.at(-1)!.text!, /Rules for lib/, 'the dynamic part is the last block');
    assert.equal(last.content.at(-2)!.text, 'second question', 'the user\'s request sits right before it');
    assert.ok((last.content.at(-2) as { cache_control?: unknown }).cache_control, 'and ends the cached prefix');
  });

  it('OpenAI Chat Completions: every message before the dynamic part is byte-identical, the user\'s words included', async () => {
    const { before, after } = await twoRequests();
    const options = { maxTokensField: 'max_tokens' as const };
    const [a, b] = [toOpenAIBody(before, options), toOpenAIBody(after, options)];
    const ma = a.messages as Array<{ role: string; content: string }>;
    const mb = b.messages as Array<{ role: string; content: string }>;
    const dynamicAt = mb.findIndex((m) => /Rules for lib/.test(m.content));
    assert.ok(dynamicAt > 0);
    assert.equal(JSON.stringify(mb.slice(0, dynamicAt)), JSON.stringify(ma.slice(0, dynamicAt)));
    assert.match(ma[dynamicAt].content, /Rules for src/);
    assert.deepEqual(b.tools, a.tools);
    assert.equal(dynamicAt, mb.length - 1, 'the dynamic part is the last message');
    assert.deepEqual(mb.at(-2), { role: 'user', content: 'second question' });
  });

  it('in a turn that goes on with tool calls, the breakpoint moves to the tool result before the dynamic part, and everything the request before sent up to its breakpoint is sent again unchanged', async () => {
    const { after } = await twoRequests();
    const note = after.messages.length - 1;
    const request: ProviderRequest = {
      ...after,
      messages: [
        ...after.messages.slice(0, note),
        { id: 'a9', role: 'assistant', kind: 'assistant', content: '', toolCalls: [{ id: 'c9', name: 'read_file', arguments: '{"path":"a"}' }], agentVisible: true, userVisible: true, createdAt: 9 },
        { id: 't9', role: 'tool', kind: 'tool_result', content: 'text of a', toolCallId: 'c9', toolName: 'read_file', agentVisible: true, userVisible: true, createdAt: 10 },
        after.messages[note],
      ],
    };
    const json = JSON.stringify(toAnthropicBody(request));
    assert.ok((json.match(/"cache_control"/g) ?? []).length <= 4);
    const turns = toAnthropicBody(request).messages as Array<{ content: Array<{ type: string; text?: string; cache_control?: unknown }> }>;
    const last = turns.at(-1)!.content;
    assert.match(last.at(-1)!.text!, /Rules for lib/, 'the dynamic part is still last');
    assert.ok(last.at(-2)!.cache_control, 'the tool result right before it carries the breakpoint');
    const previous = upToLastBreakpoint(toAnthropicBody(after)).replace(/,"cache_control":\{"type":"ephemeral"\}/g, '');
    assert.ok(json.replace(/,"cache_control":\{"type":"ephemeral"\}/g, '').startsWith(previous.slice(0, -1)), 'the request before is a prefix of this one, up to its breakpoint');
  });
});
