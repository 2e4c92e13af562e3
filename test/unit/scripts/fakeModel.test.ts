/** `npm run fake-model` speaks the OpenAI wire format well enough for Tally's real provider. */
import { strict as assert } from 'assert';
import * as path from 'path';
import type { Message } from '../../../src/core/model/message';
import { createOpenAIProvider } from '../../../src/core/providers/openai';
import type { ProviderEvent, ProviderRequest } from '../../../src/core/providers/types';
import { READ_FILE } from '../core/providers/harness';

type FakeModel = { url: string; close(): Promise<void> };
// The script is an ES module; esbuild would turn a plain import() into require().
const importModule = new Function('p', 'return import(p)') as (p: string) => Promise<{ startFakeModel(o: object): Promise<FakeModel> }>;

const msg = (fields: Partial<Message> & Pick<Message, 'role' | 'kind' | 'content'>): Message => ({ id: `m${Math.random()}`, agentVisible: true, userVisible: true, createdAt: 1, ...fields });

function request(messages: Message[]): ProviderRequest {
  return {
    model: 'scripted-model',
    system: [{ text: 'You are Tally, a coding agent. '.repeat(100) }],
    messages,
    tools: [READ_FILE],
    maxOutputTokens: 1000,
  };
}

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('npm run fake-model (scripted model server)', () => {
  let server: FakeModel;
  before(async () => {
    const { startFakeModel } = await importModule(path.resolve(__dirname, '..', '..', '..', 'scripts', 'fake-model.mjs'));
    server = await startFakeModel({ port: 0, delayMs: 0 });
  });
  after(async () => {
    await server?.close();
  });

  it('streams a labelled markdown reply with usage through the real OpenAI provider', async () => {
    const provider = createOpenAIProvider({ baseUrl: server.url });
    const events = await collect(provider.stream(request([msg({ role: 'user', kind: 'user', content: 'hello' })])));
    const text = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    assert.match(text, /^\[scripted model\] /);
    assert.match(text, /```ts\n/);
    assert.match(text, /\| You type \| Tool I call \|/);
    const usage = events.find((e) => e.type === 'usage');
    assert.ok(usage && usage.type === 'usage' && (usage.usage.inputTokens ?? 0) > 0 && (usage.usage.outputTokens ?? 0) > 0, 'usage is reported');
    assert.deepStrictEqual(events[events.length - 1], { type: 'done', stopReason: 'end_turn' });
  });

  it('calls read_file when asked to read, then describes the tool result; a repeated prefix is reported as cached', async () => {
    const provider = createOpenAIProvider({ baseUrl: server.url });
    const user = msg({ role: 'user', kind: 'user', content: 'read README.md' });
    const first = await collect(provider.stream(request([user])));
    const call = first.find((e) => e.type === 'tool_call');
    assert.ok(call && call.type === 'tool_call');
    assert.strictEqual(call.call.name, 'read_file');
    assert.deepStrictEqual(JSON.parse(call.call.arguments), { path: 'README.md' });
    assert.deepStrictEqual(first[first.length - 1], { type: 'done', stopReason: 'tool_use' });
    const assistant = msg({ role: 'assistant', kind: 'assistant', content: '', toolCalls: [call.call] });
    const result = msg({ role: 'tool', kind: 'tool_result', content: `# Demo\n${'line\n'.repeat(400)}`, toolCallId: call.call.id, toolName: 'read_file' });
    const second = await collect(provider.stream(request([user, assistant, result])));
    assert.match(second.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''), /^\[scripted model\] The tool answered with \*\*402 lines\*\*/);
    const usage = second.find((e) => e.type === 'usage');
    assert.ok(usage && usage.type === 'usage' && (usage.usage.cacheReadTokens ?? 0) > 0, 'the shared prefix is reported as cached input');
  });
});
