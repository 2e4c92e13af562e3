/**
 * The Responses body (bytes equal to the JSON of the request, each message's items serialized once),
 * which API the openai provider speaks, and the reasoning of OpenAI-compatible servers.
 */
import assert from 'node:assert/strict';
import type { Message } from '../../../../src/core/model/message';
import { createChatProvider, openAIApiFor } from '../../../../src/core/providers/chatProviderFactory';
import { responsesBodyChunks } from '../../../../src/core/providers/openai/openaiResponsesBody';
import { isReasoningModel, toResponsesBody } from '../../../../src/core/providers/openai/openaiResponsesRequest';
import type { ProviderEvent, ProviderRequest } from '../../../../src/core/providers/types';
import { ProviderError } from '../../../../src/core/providers/errors';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { RecordedStreamServer } from '../../../fakes/recordedStreamServer';

let created = 0;
function message(fields: Partial<Message> & Pick<Message, 'role' | 'kind' | 'content'>): Message {
  created++;
  return { id: `m${created}`, agentVisible: true, userVisible: true, createdAt: created, ...fields };
}

function conversation(turns: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push(message({ role: 'user', kind: 'user', content: `question ${i} "quoted" ünïcode` }));
    messages.push(
      message({
        role: 'assistant',
        kind: 'assistant',
        content: i % 2 ? `answer ${i}` : '',
        toolCalls: [{ id: `call_${i}`, name: 'read_file', arguments: i % 3 ? `{"path":"f${i}"}` : 'not json' }],
        reasoning: [{ format: 'openai-responses', text: `thought ${i}`, itemId: `rs_${i}`, encryptedContent: `enc${i}` }, { format: 'openai-chat', text: 'never sent' }],
      }),
    );
    messages.push(message({ role: 'tool', kind: 'tool_result', content: `contents ${i}`, toolCallId: `call_${i}`, toolName: 'read_file' }));
  }
  return messages;
}

function request(messages: Message[], extra: Partial<ProviderRequest> = {}): ProviderRequest {
  return { model: 'gpt-5', system: [{ text: 'be brief' }], messages, tools: [], maxOutputTokens: 1000, ...extra };
}

describe('OpenAI Responses request body', () => {
  it('is, byte for byte, the JSON of the request', () => {
    const req = request(conversation(5), { reasoning: { effort: 'low' }, temperature: 0.2 });
    const bytes = responsesBodyChunks(req).join();
    assert.equal(new TextDecoder().decode(bytes), JSON.stringify(toResponsesBody(req)));
  });

  it('sends only reasoning it can return (Responses items with encrypted content), never a server\'s readable reasoning', () => {
    const body = toResponsesBody(request(conversation(1))) as { input: any[] };
    assert.deepEqual(body.input.map((i) => i.type ?? i.role), ['user', 'reasoning', 'function_call', 'function_call_output']);
    assert.ok(!JSON.stringify(body).includes('never sent'));
  });

  it('serializes a 10,000-message conversation once: the next request reuses every earlier message\'s bytes', () => {
    const messages = conversation(3_334).slice(0, 10_000);
    const first = responsesBodyChunks(request(messages)).parts;
    const next = responsesBodyChunks(request([...messages, message({ role: 'user', kind: 'user', content: 'one more' })])).parts;
    // Chunk 0 is the head of the body; each message's bytes follow, a comma between them.
    const firstItems = first.filter((chunk) => chunk.length > 1).slice(1, -1);
    const nextItems = next.filter((chunk) => chunk.length > 1).slice(1, -2);
    assert.equal(firstItems.length, 10_000);
    assert.equal(nextItems.length, 10_000);
    assert.ok(firstItems.every((chunk, i) => chunk === nextItems[i]), 'the same byte arrays, not new ones');
  });

  it('asks for encrypted reasoning only from models that reason or when an effort is set', () => {
    assert.deepEqual(toResponsesBody(request([], { model: 'gpt-4.1' })).include, undefined);
    assert.deepEqual(toResponsesBody(request([], { model: 'gpt-4.1', reasoning: { effort: 'high' } })).reasoning, { effort: 'high', summary: 'auto' });
    assert.deepEqual(toResponsesBody(request([], { model: 'o4-mini' })).include, ['reasoning.encrypted_content']);
    assert.equal(toResponsesBody(request([], { model: 'o3', temperature: 0.2 })).temperature, undefined, 'reasoning models refuse a temperature');
    assert.equal(toResponsesBody(request([], { model: 'gpt-4.1', temperature: 0.2 })).temperature, 0.2);
    assert.equal(isReasoningModel('gpt-5-chat-latest'), false);
    assert.equal(isReasoningModel('gpt-5.1-codex-max'), true);
  });
});

describe('which API the openai provider speaks', () => {
  it('the Responses API at OpenAI\'s address, Chat Completions at any other unless the setting says otherwise', () => {
    assert.equal(openAIApiFor(undefined, 'auto'), 'responses');
    assert.equal(openAIApiFor('https://api.openai.com/v1', undefined), 'responses');
    assert.equal(openAIApiFor('https://gateway.example/v1', 'auto'), 'chat-completions');
    assert.equal(openAIApiFor('https://gateway.example/v1', 'responses'), 'responses');
    assert.equal(openAIApiFor(undefined, 'chat-completions'), 'chat-completions');
  });

  it('an OpenAI-compatible server stays on Chat Completions whatever the setting', async () => {
    const server = await new FakeOpenAIServer().start();
    try {
      server.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
      const provider = createChatProvider({ provider: 'openai-compatible', baseUrl: server.url, openaiApi: 'responses' });
      for await (const event of provider.stream(request([message({ role: 'user', kind: 'user', content: 'x' })]))) void event;
      assert.equal(server.requests[0].path, '/v1/chat/completions');
    } finally {
      await server.close();
    }
  });
});

describe('reasoning of OpenAI-compatible servers', () => {
  async function decode(deltas: Array<Record<string, unknown>>): Promise<{ events: ProviderEvent[]; server: FakeOpenAIServer; provider: ReturnType<typeof createChatProvider> }> {
    const server = await new FakeOpenAIServer().start();
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.enqueue({ type: 'raw', headers: { 'content-type': 'text/event-stream' }, chunks: [...deltas.map((d) => chunk(d)), chunk({}, 'stop'), 'data: [DONE]\n\n'] });
    const provider = createChatProvider({ provider: 'openai-compatible', baseUrl: server.url });
    const events: ProviderEvent[] = [];
    for await (const event of provider.stream(request([message({ role: 'user', kind: 'user', content: 'x' })]))) events.push(event);
    return { events, server, provider };
  }

  for (const field of ['reasoning_content', 'reasoning']) {
    it(`streams \`${field}\` as reasoning and keeps it as one block, apart from the answer`, async () => {
      const { events, server } = await decode([{ role: 'assistant', [field]: 'Let me ' }, { [field]: 'think.' }, { content: 'Four.' }]);
      try {
        assert.deepEqual(events.filter((e) => e.type === 'reasoning_delta').map((e) => (e as { text: string }).text), ['Let me ', 'think.']);
        assert.deepEqual(events.filter((e) => e.type === 'reasoning').map((e) => (e as { block: unknown }).block), [{ format: 'openai-chat', text: 'Let me think.' }]);
        assert.deepEqual(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text), ['Four.']);
        // The block comes when the answer starts, before its text.
        assert.ok(events.findIndex((e) => e.type === 'reasoning') < events.findIndex((e) => e.type === 'text'));
      } finally {
        await server.close();
      }
    });
  }

  it('sends a server\'s reasoning back only with the tool calls it led to, as reasoning_content (DeepSeek\'s thinking mode requires it there)', async () => {
    const { events, server, provider } = await decode([{ reasoning_content: 'secret chain' }, { content: 'Four.' }]);
    try {
      const block = (events.find((e) => e.type === 'reasoning') as { block: any }).block;
      const calling = { format: 'openai-chat' as const, text: 'I should read the file' };
      server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
      const history = [
        message({ role: 'user', kind: 'user', content: 'x' }),
        message({ role: 'assistant', kind: 'assistant', content: 'Four.', reasoning: [block] }),
        message({ role: 'user', kind: 'user', content: 'y' }),
        message({ role: 'assistant', kind: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }], reasoning: [calling, { format: 'openai-responses', text: 'other format', itemId: 'rs', encryptedContent: 'e' }] }),
        message({ role: 'tool', kind: 'tool_result', content: 'text', toolCallId: 'call_1', toolName: 'read_file' }),
      ];
      for await (const event of provider.stream(request(history))) void event;
      const sent = server.requests[1].body.messages as any[];
      assert.ok(!server.requests[1].rawBody.includes('secret chain'), 'an answer without calls sends no reasoning');
      assert.ok(!server.requests[1].rawBody.includes('other format'));
      assert.equal(sent.find((m) => m.tool_calls)?.reasoning_content, 'I should read the file');
    } finally {
      await server.close();
    }
  });
});

describe('how a Responses stream ends', () => {
  const user = () => message({ role: 'user', kind: 'user', content: 'x' });
  const line = (event: Record<string, unknown>) => JSON.stringify(event);
  const callStart = line({ type: 'response.output_item.added', output_index: 0, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '' } });
  const callDelta = line({ type: 'response.function_call_arguments.delta', output_index: 0, item_id: 'fc_1', delta: '{"pa' });

  async function run(events: string[]): Promise<ProviderEvent[]> {
    const server = new RecordedStreamServer('/v1/responses', [events]);
    const url = await server.start();
    try {
      const provider = createChatProvider({ provider: 'openai', apiKey: 'k', baseUrl: `${url}/v1`, openaiApi: 'responses', retry: { maxAttempts: 1 } });
      const out: ProviderEvent[] = [];
      for await (const event of provider.stream(request([user()]))) out.push(event);
      return out;
    } finally {
      await server.stop();
    }
  }

  it('response.incomplete at the output limit: stop reason max_tokens, and the call it cut off is not complete', async () => {
    const events = await run([callStart, callDelta, line({ type: 'response.incomplete', response: { incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 10, output_tokens: 5 } } })]);
    assert.deepEqual(events.filter((e) => e.type === 'tool_call'), []);
    assert.deepEqual(events.at(-1), { type: 'done', stopReason: 'max_tokens' });
  });

  it('response.failed: the error the server gave, with its message', async () => {
    await assert.rejects(run([line({ type: 'response.failed', response: { error: { code: 'server_error', message: 'The model failed to answer.' } } })]), (error: unknown) => error instanceof ProviderError && /The model failed to answer/.test(error.message));
  });

  it('a stream that ends before response.completed is an error, and its half-made call is never reported', async () => {
    await assert.rejects(run([callStart, callDelta]), (error: unknown) => error instanceof ProviderError && error.kind === 'stream_dropped');
  });
});
