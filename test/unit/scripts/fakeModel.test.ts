/** `npm run fake-model` speaks the OpenAI wire format well enough for Tally's real provider. */
import { strict as assert } from 'assert';
import * as path from 'path';
import type { Message } from '../../../src/core/model/message';
import { createOpenAIProvider } from '../../../src/core/providers/openai/openai';
import type { ProviderEvent, ProviderRequest } from '../../../src/core/providers/types';
import { READ_FILE } from '../core/providers/harness';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { LlmSummarizer } from '../../../src/core/compaction/llmSummarizer';
import { completeOnce } from '../../../src/core/providers/completeOnce';
import { hiddenUserMessage } from '../../../src/core/model/factories';
import { builtinTools } from '../../../src/core/tools/builtin';
import type { ApprovalRequest } from '../../../src/core/tools/types';
import { outputText, runOptions, testRegistry } from '../../support/toolRegistry';

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

  it('scripts an edit: reads the file, then edit_file adds a comment line, which asks with the diff and changes the file on disk', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'tally-fake-edit-'));
    try {
      writeFileSync(path.join(folder, 'notes.md'), '# Notes\n\nBuy milk.\n');
      const asked: ApprovalRequest[] = [];
      const registry = testRegistry({ tools: builtinTools(), folders: [folder], ask: async (r) => (asked.push(r), { approved: true }) });
      const provider = createOpenAIProvider({ baseUrl: server.url });
      const tools = registry.definitions();
      const history: Message[] = [msg({ role: 'user', kind: 'user', content: 'edit notes.md' })];
      for (const expected of ['read_file', 'edit_file']) {
        const events = await collect(provider.stream({ ...request(history), tools }));
        const call = events.find((e) => e.type === 'tool_call');
        assert.ok(call && call.type === 'tool_call', `the model calls ${expected}`);
        assert.strictEqual(call.call.name, expected);
        const result = await registry.run(call.call, runOptions());
        assert.ok(!result.isError, outputText(result));
        history.push(msg({ role: 'assistant', kind: 'assistant', content: '', toolCalls: [call.call] }), msg({ role: 'tool', kind: 'tool_result', content: outputText(result), toolCallId: call.call.id, toolName: expected }));
      }
      assert.deepStrictEqual(asked.map((r) => r.kind), ['edit'], 'the edit asked for approval, with its diff');
      assert.match(asked[0].detail ?? '', /\+<!-- Edited by Tally's scripted model -->/);
      assert.strictEqual(readFileSync(path.join(folder, 'notes.md'), 'utf8'), "<!-- Edited by Tally's scripted model -->\n# Notes\n\nBuy milk.\n");
      const last = await collect(provider.stream({ ...request(history), tools }));
      assert.match(last.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''), /^\[scripted model\] The tool answered/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('answers a compaction summary request with a checkpoint in the local summarizer\'s shape', async () => {
    const provider = createOpenAIProvider({ baseUrl: server.url });
    const summarizer = new LlmSummarizer(
      async (p) => (await completeOnce(provider, { model: 'scripted-model', system: [{ text: p.system }], messages: [hiddenUserMessage(p.user, { id: 'summary-request' })], tools: [], maxOutputTokens: p.maxTokens })).text,
      'scripted-model',
    );
    const call = { id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: 'npm test' }) };
    const edit = { id: 'c2', name: 'edit_file', arguments: JSON.stringify({ path: 'src/app.ts', old_text: 'a', new_text: 'b' }) };
    const summary = await summarizer.summarize({
      style: 'checkpoint',
      maxTokens: 500,
      messages: [
        msg({ role: 'user', kind: 'user', content: 'make the tests pass' }),
        msg({ role: 'assistant', kind: 'assistant', content: 'Running them.', toolCalls: [call] }),
        msg({ role: 'tool', kind: 'tool_result', content: '1 failing', toolCallId: 'c1', toolName: 'run_command' }),
        msg({ role: 'assistant', kind: 'assistant', content: '', toolCalls: [edit] }),
        msg({ role: 'tool', kind: 'tool_result', content: 'Edited src/app.ts', toolCallId: 'c2', toolName: 'edit_file' }),
      ],
    });
    assert.strictEqual(summarizer.lastError, undefined, 'the model answered (no local fallback)');
    assert.match(summary, /^## Checkpoint \(scripted model's summary of 5 messages\)\n### Task\nmake the tests pass\n### Established\n- nothing yet\n### Changed\n- src\/app\.ts\n### Last commands\n- `npm test` → ran\n### Failed\n- nothing\n### Open questions\n- none\n### Next step\n.+$/);
  });

  it("a checkpoint of a session that only listed files passes Tally's check: no note of a rejected summary reaches the model", async () => {
    const provider = createOpenAIProvider({ baseUrl: server.url });
    const summarizer = new LlmSummarizer(
      async (p) => (await completeOnce(provider, { model: 'scripted-model', system: [{ text: p.system }], messages: [hiddenUserMessage(p.user, { id: 'summary-request' })], tools: [], maxOutputTokens: p.maxTokens })).text,
      'scripted-model',
    );
    const call = { id: 'c1', name: 'list_files', arguments: JSON.stringify({ path: '.' }) };
    const notes: string[] = [];
    const summary = await summarizer.summarize({
      onNote: (note) => notes.push(note),
      style: 'checkpoint',
      maxTokens: 500,
      messages: [
        msg({ role: 'user', kind: 'user', content: 'list files' }),
        msg({ role: 'assistant', kind: 'assistant', content: 'Listing.', toolCalls: [call] }),
        msg({ role: 'tool', kind: 'tool_result', content: 'README.md\nsrc/', toolCallId: 'c1', toolName: 'list_files' }),
      ],
    });
    assert.deepEqual(notes, [], 'the check neither completed nor replaced it');
    assert.doesNotMatch(summary, /local summary used|left these out|completed:/);
    assert.match(summary, /^## Checkpoint \(scripted model's summary/);
  });

  it('follows the request when a nested AGENTS.md applies (its note comes after the request), thinks when asked, and delegates', async () => {
    const { scriptedReply } = (await importModule(path.resolve(__dirname, '..', '..', '..', 'scripts', 'fake-model.mjs'))) as unknown as { scriptedReply(m: unknown[]): { text: string; reasoning?: string; call?: { name: string; arguments: Record<string, unknown> } } };
    const nested = scriptedReply([{ role: 'system', content: 'You are Tally.' }, { role: 'user', content: 'read src/app.ts' }, { role: 'user', content: 'Instructions from src/AGENTS.md (the active file is below it):\nUse tabs.' }]);
    assert.deepEqual(nested.call, { name: 'read_file', arguments: { path: 'src/app.ts' } });
    const delegated = scriptedReply([{ role: 'user', content: 'delegate list files' }]);
    assert.deepEqual(delegated.call, { name: 'delegate', arguments: { task: 'list files' } });
    const reported = scriptedReply([{ role: 'user', content: 'delegate list files' }, { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'delegate', arguments: '{"task":"list files"}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'README.md and src/' }]);
    assert.match(reported.text, /The subagent reported back:\n\n> README\.md and src\//);

    const provider = createOpenAIProvider({ baseUrl: server.url });
    const events = await collect(provider.stream(request([msg({ role: 'user', kind: 'user', content: 'think about the tests' })]), new AbortController().signal));
    const thinking = events.flatMap((e) => (e.type === 'reasoning_delta' ? [e.text] : [])).join('');
    assert.match(thinking, /^The user asked me to think about the tests\./);
    assert.match(events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''), /^\[scripted model\] I thought about the tests first/);
  });

  it('fetches a page with fetch_url when asked, and says how many images of which types a message carried', async () => {
    const { scriptedReply } = (await importModule(path.resolve(__dirname, '..', '..', '..', 'scripts', 'fake-model.mjs'))) as unknown as { scriptedReply(m: unknown[]): { text: string; call?: { name: string; arguments: Record<string, unknown> } } };
    assert.deepEqual(scriptedReply([{ role: 'user', content: 'fetch https://example.com/docs' }]).call, { name: 'fetch_url', arguments: { url: 'https://example.com/docs' } });
    const pasted = scriptedReply([{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } }] }]);
    assert.match(pasted.text, /I received \*\*2 images\*\* \(image\/png, image\/webp\)/);
    assert.equal(pasted.call, undefined);
    const before = scriptedReply([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } }] }, { role: 'user', content: 'describe it' }]);
    assert.match(before.text, /I received \*\*1 image\*\* \(image\/jpeg\)/, 'an image attached in the message before the text');
  });
});
