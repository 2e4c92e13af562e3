/** Anthropic stream details beyond the shared conformance suite, over real HTTP. */
import { strict as assert } from 'assert';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { message, ofType, recordingSleep, request, run, textOf, toolCall } from './harness';

const KEY = 'sk-ant-test-key-0123456789';
const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const start = ev('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude', usage: { input_tokens: 10, output_tokens: 1 } } });

describe('Anthropic stream', () => {
  let server: FakeAnthropicServer;
  beforeEach(async () => {
    server = await new FakeAnthropicServer({ apiKey: KEY }).start();
  });
  afterEach(async () => {
    await server.close();
  });
  const provider = (extra = {}) => createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, ...extra });

  it('sends x-api-key and anthropic-version, and no Authorization header', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
    await run(provider(), request());
    const headers = server.requests[0].headers;
    assert.equal(headers['x-api-key'], KEY);
    assert.equal(headers['anthropic-version'], '2023-06-01');
    assert.equal(headers.authorization, undefined);
  });

  it('skips thinking blocks and unknown events; a tool with no input gets {}', async () => {
    server.enqueue({
      type: 'raw',
      chunks: [
        start,
        ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
        ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think' } }),
        ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'abc' } }),
        ev('content_block_stop', { type: 'content_block_stop', index: 0 }),
        ev('some_future_event', { type: 'some_future_event' }),
        ev('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'list_files', input: {} } }),
        ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } }),
        ev('content_block_stop', { type: 'content_block_stop', index: 1 }),
        ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } }),
        ev('message_stop', { type: 'message_stop' }),
      ],
    });
    const { events, error } = await run(provider(), request());
    assert.equal(error, undefined);
    assert.equal(textOf(events), '');
    assert.deepEqual(ofType(events, 'tool_call').map((e) => e.call), [{ id: 'toolu_1', name: 'list_files', arguments: '{}' }]);
    assert.deepEqual(ofType(events, 'tool_call_start')[0].index, 0, 'tool indexes count tool calls, not content blocks');
    assert.deepEqual(ofType(events, 'usage')[0].usage, { inputTokens: 10, outputTokens: 12 });
  });

  it('a stream cut after message_delta but before message_stop is still complete', async () => {
    server.enqueue({
      type: 'raw',
      chunks: [
        start,
        ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Truncated by the limit' } }),
        ev('content_block_stop', { type: 'content_block_stop', index: 0 }),
        ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 1024 } }),
      ],
      then: 'close',
    });
    const { events, error } = await run(provider(), request());
    assert.equal(error, undefined);
    assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'max_tokens' });
  });

  it('retries 529 overloaded', async () => {
    server.enqueue({ type: 'overloaded' }, { type: 'reply', parts: [{ text: 'back' }] });
    const { sleep, delays } = recordingSleep();
    const { events, error } = await run(provider({ retry: { sleep } }), request());
    assert.equal(error, undefined);
    assert.equal(textOf(events), 'back');
    assert.equal(delays.length, 1);
  });

  it('without an API key fails as auth before sending anything', async () => {
    const { error } = await run(createAnthropicProvider({ apiKey: '', baseUrl: server.url }), request());
    assert.equal(error?.kind, 'auth');
    assert.equal(server.requests.length, 0);
  });

  it('the fake rejects a tool_use without its tool_result, as the API does', async () => {
    const { error } = await run(
      createAnthropicProvider({ apiKey: KEY, baseUrl: server.url, cacheConversation: false }),
      request([message({ role: 'user', content: 'x' }), message({ role: 'assistant', content: 'y', toolCalls: [toolCall('toolu_9', 'read_file', { path: 'a' })] }), message({ role: 'user', content: 'z' })]),
    );
    assert.equal(error?.kind, 'bad_request');
    assert.match(error!.message, /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_9/);
  });
});
