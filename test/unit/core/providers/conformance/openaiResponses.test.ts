/**
 * The Responses API provider against traffic recorded from the real API by public projects
 * (recordings/openai-responses/SOURCES.md): what Tally decodes from each recorded stream, and what
 * it sends next, checked against the recording and against a request the real API accepted.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'fs';
import { join } from 'path';
import type { Message, ReasoningBlock, ToolCall } from '../../../../../src/core/model/message';
import { ProviderError } from '../../../../../src/core/providers/errors';
import { createChatProvider } from '../../../../../src/core/providers/chatProviderFactory';
import type { ChatProvider, ProviderEvent, ProviderRequest } from '../../../../../src/core/providers/types';
import { recordedResponses, RecordedStreamServer } from '../../../../fakes/recordedStreamServer';

const FOLDER = join(__dirname, 'recordings', 'openai-responses');
const KEY = 'sk-conformance-responses';

function responsesOf(name: string): string[][] {
  return recordedResponses(join(FOLDER, name), (type) => type === 'response.created');
}

function eventsOf(lines: string[]): Array<Record<string, any>> {
  return lines.map((line) => JSON.parse(line) as Record<string, any>);
}

async function collect(provider: ChatProvider, request: ProviderRequest): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream(request)) events.push(event);
  return events;
}

interface Decoded {
  text: string;
  reasoningText: string;
  blocks: ReasoningBlock[];
  calls: ToolCall[];
  usage?: Record<string, number | undefined>;
  stop?: string;
}

function decoded(events: ProviderEvent[]): Decoded {
  const out: Decoded = { text: '', reasoningText: '', blocks: [], calls: [] };
  for (const event of events) {
    if (event.type === 'text') out.text += event.text;
    if (event.type === 'reasoning_delta') out.reasoningText += event.text;
    if (event.type === 'reasoning') out.blocks.push(event.block);
    if (event.type === 'tool_call') out.calls.push(event.call);
    if (event.type === 'usage') out.usage = { ...event.usage };
    if (event.type === 'done') out.stop = event.stopReason;
  }
  return out;
}

let created = 0;
function message(fields: Partial<Message> & Pick<Message, 'role' | 'kind' | 'content'>): Message {
  created++;
  return { id: `m${created}`, agentVisible: true, userVisible: true, createdAt: created, ...fields };
}

function request(messages: Message[], tools = [{ name: 'calculator', description: 'A minimal calculator.', inputSchema: { properties: { a: { type: 'number' } } }, source: 'builtin' as const }]): ProviderRequest {
  return { model: 'gpt-5.1-codex-max', system: [{ text: 'You are a careful assistant.' }], messages, tools, maxOutputTokens: 4096, reasoning: { effort: 'high' } };
}

/** The request bodies of a vcrpy cassette (YAML single-quoted scalars: a line break and its indent fold to one space, '' is a quote). */
function cassetteRequestBodies(file: string): any[] {
  const text = readFileSync(file, 'utf8');
  const bodies: any[] = [];
  const opener = "\n    body: '";
  let at = text.indexOf(opener);
  while (at >= 0) {
    const start = at + opener.length;
    const end = text.indexOf("'\n    headers:", start);
    const scalar = text.slice(start, end).replace(/\n\s*/g, ' ').replace(/''/g, "'");
    bodies.push(JSON.parse(scalar));
    at = text.indexOf(opener, end);
  }
  return bodies;
}

describe('conformance: OpenAI Responses API, recorded traffic', () => {
  let server: RecordedStreamServer;
  afterEach(() => server?.stop());

  async function providerFor(responses: string[][]): Promise<ChatProvider> {
    server = new RecordedStreamServer('/v1/responses', responses);
    const url = await server.start();
    return createChatProvider({ provider: 'openai', apiKey: KEY, baseUrl: `${url}/v1`, openaiApi: 'responses', retry: { maxAttempts: 1 } });
  }

  it('decodes encrypted reasoning, its summary and a function call, and reports usage and the stop reason as recorded', async () => {
    const recorded = responsesOf('openai-reasoning-encrypted-content.1.chunks.txt');
    assert.equal(recorded.length, 4, 'the recording holds four responses');
    const provider = await providerFor(recorded);
    const got = decoded(await collect(provider, request([message({ role: 'user', kind: 'user', content: 'What is (12 + 7) * 3 * 10? Use the calculator.' })])));

    const events = eventsOf(recorded[0]);
    const reasoningDone = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning')!.item;
    const reasoningAdded = events.find((e) => e.type === 'response.output_item.added' && e.item.type === 'reasoning')!.item;
    const callDone = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call')!.item;
    const usage = events.find((e) => e.type === 'response.completed')!.response.usage;

    assert.equal(got.reasoningText, reasoningDone.summary[0].text);
    assert.equal(got.blocks.length, 1);
    assert.equal(got.blocks[0].format, 'openai-responses');
    assert.equal(got.blocks[0].itemId, reasoningDone.id);
    // The encrypted content is taken from the finished item, not from the one announced first.
    assert.notEqual(reasoningAdded.encrypted_content, reasoningDone.encrypted_content);
    assert.equal(got.blocks[0].encryptedContent, reasoningDone.encrypted_content);
    assert.equal(got.blocks[0].text, reasoningDone.summary[0].text);
    assert.deepEqual(got.calls, [{ id: callDone.call_id, name: 'calculator', arguments: callDone.arguments }]);
    assert.equal(got.text, '');
    assert.deepEqual(got.usage, { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, cacheReadTokens: 0, reasoningTokens: 0 });
    assert.equal(got.stop, 'tool_use');
  });

  it('sends the reasoning back before its call, with the finished encrypted content, and the output under the same call id, as a request the real API accepted', async () => {
    const recorded = responsesOf('openai-reasoning-encrypted-content.1.chunks.txt');
    const provider = await providerFor(recorded);
    const user = message({ role: 'user', kind: 'user', content: 'What is (12 + 7) * 3 * 10? Use the calculator.' });
    const first = decoded(await collect(provider, request([user])));
    const assistant = message({ role: 'assistant', kind: 'assistant', content: first.text, toolCalls: first.calls, reasoning: first.blocks });
    const result = message({ role: 'tool', kind: 'tool_result', content: '19', toolCallId: first.calls[0].id, toolName: 'calculator' });
    const second = decoded(await collect(provider, request([user, assistant, result])));

    const sent = server.requests[1].body;
    assert.equal(server.requests[1].path, '/v1/responses');
    assert.equal(server.requests[1].headers.authorization, `Bearer ${KEY}`);
    assert.equal(sent.store, false);
    assert.deepEqual(sent.include, ['reasoning.encrypted_content']);
    assert.deepEqual(sent.reasoning, { effort: 'high', summary: 'auto' });
    assert.equal(sent.instructions, 'You are a careful assistant.');
    assert.deepEqual(sent.input.map((item: any) => item.type ?? item.role), ['user', 'reasoning', 'function_call', 'function_call_output']);
    assert.equal(sent.input[1].id, first.blocks[0].itemId);
    assert.equal(sent.input[1].encrypted_content, first.blocks[0].encryptedContent);
    assert.equal(sent.input[2].call_id, sent.input[3].call_id);
    assert.equal(sent.input[2].call_id, first.calls[0].id);

    // simonw/llm's second request was accepted by the real API (200): the same items, the same fields.
    const accepted = cassetteRequestBodies(join(FOLDER, 'llm-round-trips-encrypted-reasoning.yaml'))[1];
    const shape = (items: any[]) => items.map((item) => Object.keys(item).sort().join(','));
    assert.deepEqual(shape(sent.input), shape(accepted.input));
    assert.equal(accepted.store, sent.store);
    assert.deepEqual(accepted.include, sent.include);

    // And the recording's second response decodes as recorded.
    const callDone = eventsOf(recorded[1]).find((e) => e.type === 'response.output_item.done')!.item;
    assert.deepEqual(second.calls, [{ id: callDone.call_id, name: 'calculator', arguments: '{"a":19,"b":3,"op":"multiply"}' }]);
    assert.equal(second.stop, 'tool_use');
  });

  it('reports cached and reasoning tokens, and the answer text, as recorded', async () => {
    const recorded = responsesOf('openai-phase.1.chunks.txt');
    const provider = await providerFor(recorded);
    const got = decoded(await collect(provider, request([message({ role: 'user', kind: 'user', content: 'AI news today?' })], [])));
    const events = eventsOf(recorded[0]);
    const usage = events.find((e) => e.type === 'response.completed')!.response.usage;
    // Two messages (the recording shortened their deltas): each as streamed, a paragraph apart.
    const streamed = (index: number) => events.filter((e) => e.type === 'response.output_text.delta' && e.output_index === index).map((e) => e.delta).join('');
    assert.equal(got.text, `${streamed(0)}\n\n${streamed(2)}`);
    assert.deepEqual(got.usage, { inputTokens: 7112, outputTokens: 463, cacheReadTokens: 3072, reasoningTokens: 64 });
    assert.equal(usage.input_tokens_details.cached_tokens, 3072);
    assert.equal(got.stop, 'end_turn');
  });

  it('follows a gateway that renames items between events: the summary, the answer and the usage as recorded', async () => {
    const recorded = responsesOf('github-copilot-id-rotation.1.chunks.txt');
    const provider = await providerFor(recorded);
    const got = decoded(await collect(provider, request([message({ role: 'user', kind: 'user', content: 'How many r in strawberry?' })], [])));
    const events = eventsOf(recorded[0]);
    const summary = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'reasoning')!.item.summary.map((p: any) => p.text).join('\n\n');
    const answer = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'message')!.item.content[0].text;
    assert.equal(got.reasoningText, summary);
    assert.equal(got.text, answer);
    assert.equal(got.usage?.reasoningTokens, 44);
    assert.equal(got.stop, 'end_turn');
  });

  it('turns the recorded insufficient_quota error event into an error that is not retried', async () => {
    const recorded = responsesOf('openai-error.1.chunks.txt');
    const provider = await providerFor([recorded[0], recorded[0]]);
    await assert.rejects(collect(provider, request([message({ role: 'user', kind: 'user', content: 'hi' })], [])), (error: unknown) => {
      assert.ok(error instanceof ProviderError);
      assert.match(error.message, /exceeded your current quota/);
      assert.equal(error.retryable, false);
      return true;
    });
    assert.equal(server.requests.length, 1);
  });
});
