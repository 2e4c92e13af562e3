/**
 * What a subagent's requests carry besides its task: the project's AGENTS.md (from a trusted
 * workspace only, counted in its own prompt) and, on a thinking model, its thinking sent back as
 * the provider requires (a fake Anthropic server on 127.0.0.1 that applies the API's thinking rules).
 */
import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { subagentSessions } from '../../../../../src/core/agent/subagents/sessionLink';
import { createAnthropicProvider } from '../../../../../src/core/providers/anthropic/anthropic';
import { loadInstructions } from '../../../../../src/node/prompt/agentsMd';
import { FakeAnthropicServer } from '../../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../../fakes/scriptedServer';
import { firstUser, subagentHarness, toolResults } from './subagentHarness';

const RULE = 'Use pnpm, never npm, in this repository.';

function delegating(request: RecordedRequest): FakeReply {
  if (firstUser(request).startsWith('USER:')) {
    return toolResults(request) === 0 ? { type: 'reply', parts: [{ toolCall: { name: 'delegate', arguments: JSON.stringify({ task: 'TASK how are tests run?' }) } }] } : { type: 'reply', parts: [{ text: 'Done.' }] };
  }
  return { type: 'reply', parts: [{ text: 'Report: with pnpm test.' }] };
}

const systemText = (request: RecordedRequest) => JSON.stringify((request.body.messages as Array<{ role: string }>).filter((m) => m.role === 'system'));

describe('subagents: their prompt', function () {
  this.timeout(60_000);
  let folder: string;
  let openai: FakeOpenAIServer | undefined;
  let anthropic: FakeAnthropicServer | undefined;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'tally-subagent-agents-'));
    mkdirSync(join(folder, 'src'));
    writeFileSync(join(folder, 'AGENTS.md'), `# Project\n${RULE}\n`);
  });
  afterEach(async () => {
    await openai?.close();
    await anthropic?.close();
    openai = anthropic = undefined;
    rmSync(folder, { recursive: true, force: true });
  });

  async function run(trusted: boolean) {
    openai = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: delegating }).start();
    const instructions = async () => (await loadInstructions({ workspaceFolders: [folder], userFile: join(folder, 'no-user-file.md'), trusted })).parts;
    const h = await subagentHarness({ server: openai, instructions });
    assert.equal(await h.agent.send('USER: how are tests run here?'), 'end_turn');
    const sub = openai.requests.find((r) => firstUser(r).startsWith('TASK'))!;
    const [child] = await subagentSessions(h.env.store, h.contextSession.sessionId);
    const usage = await h.env.store.requestUsageAt(child.info.id, 0);
    return { sub, usage };
  }

  it("carries the workspace's AGENTS.md, as an item of its own request with its tokens", async () => {
    const { sub, usage } = await run(true);
    assert.ok(systemText(sub).includes(RULE), 'the subagent reads the project rules');
    assert.ok(systemText(sub).includes('You are a subagent'), 'after its role');
    const item = usage?.items.find((i) => i.path?.endsWith('AGENTS.md'));
    assert.ok(item && item.section === 'system' && item.tokens > 10, `AGENTS.md is counted in the subagent's prompt (${JSON.stringify(item)})`);
  });

  it('carries no AGENTS.md from an untrusted workspace', async () => {
    const { sub, usage } = await run(false);
    assert.ok(!systemText(sub).includes(RULE));
    assert.equal(usage?.items.some((i) => i.path?.endsWith('AGENTS.md')), false);
  });

  it('on a thinking model, asks for thinking and sends its own thinking back first, signature unchanged', async () => {
    anthropic = await new FakeAnthropicServer({ apiKey: 'sk-ant-sub' }).start();
    const stream = (events: object[]): FakeReply => ({ type: 'raw', chunks: events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`), headers: { 'content-type': 'text/event-stream' } });
    const start = { type: 'message_start', message: { id: 'msg', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 60, output_tokens: 1 } } };
    const thinking = (index: number, text: string, signature: string) => [
      { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: text } },
      { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } },
      { type: 'content_block_stop', index },
    ];
    const toolUse = (index: number, id: string, name: string, input: object) => [
      { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
      { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } },
      { type: 'content_block_stop', index },
    ];
    const text = (index: number, t: string) => [{ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } }, { type: 'content_block_stop', index }];
    const end = (stop: string) => [{ type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 30 } }, { type: 'message_stop' }];
    anthropic.enqueue(
      stream([start, ...thinking(0, 'The parent should delegate.', 'SIG-PARENT-1'), ...toolUse(1, 'toolu_parent', 'delegate', { task: 'TASK echo something' }), ...end('tool_use')]),
      stream([start, ...thinking(0, 'I will call echo first.', 'SIG-SUB-1'), ...toolUse(1, 'toolu_sub', 'echo', { text: 'hi' }), ...end('tool_use')]),
      stream([start, ...text(0, 'Report: echo said hi.'), ...end('end_turn')]),
      stream([start, ...text(0, 'All done.'), ...end('end_turn')]),
    );
    const provider = createAnthropicProvider({ apiKey: 'sk-ant-sub', baseUrl: anthropic.url, retry: { maxAttempts: 1 } });
    const h = await subagentHarness({ provider, model: 'claude-haiku-4-5-20251001', reasoning: { effort: 'low', budgetTokens: 1024 } });
    assert.equal(await h.agent.send('USER: delegate an echo'), 'end_turn');
    assert.equal(anthropic.requests.length, 4, 'the fake server accepted every request (it rejects a tool loop whose turn does not start with its thinking)');
    const [, subFirst, subSecond] = anthropic.requests.map((r) => r.body);
    assert.deepEqual(subFirst.thinking, { type: 'enabled', budget_tokens: 1024 }, 'the subagent asks for thinking as its parent does');
    assert.equal(subFirst.messages[0].content[0]?.text ?? subFirst.messages[0].content, 'TASK echo something');
    const assistant = subSecond.messages[1];
    assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: 'I will call echo first.', signature: 'SIG-SUB-1' }, "its own thinking, not the parent's, first and unchanged");
    assert.ok(!JSON.stringify(subSecond.messages).includes('SIG-PARENT-1'), "the parent's thinking stays in the parent's session");
  });
});
