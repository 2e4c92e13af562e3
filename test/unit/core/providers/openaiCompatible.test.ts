/** Quirks of OpenAI-compatible servers (Ollama, LM Studio, vLLM, llama.cpp), over real HTTP. */
import { strict as assert } from 'assert';
import { createServer } from 'net';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { message, ofType, recordingSleep, request, run, textOf } from './harness';

const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;

describe('OpenAI-compatible servers', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await new FakeOpenAIServer().start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('Ollama style: a whole tool call in one chunk without index, finish_reason stop, usage on the last chunk, no [DONE]', async () => {
    server.enqueue({
      type: 'raw',
      chunks: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ tool_calls: [{ id: 'call_olla', function: { name: 'read_file', arguments: '{"path":"main.go"}' } }] }),
        chunk({}, 'stop', { usage: { prompt_tokens: 310, completion_tokens: 22, total_tokens: 332 } }),
      ],
    });
    const { events, error } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(error, undefined);
    assert.deepEqual(ofType(events, 'tool_call').map((e) => e.call), [{ id: 'call_olla', name: 'read_file', arguments: '{"path":"main.go"}' }]);
    assert.deepEqual(ofType(events, 'usage').map((e) => e.usage), [{ inputTokens: 310, outputTokens: 22 }]);
    assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'tool_use' });
  });

  it('reasoning tokens a server reports in completion_tokens_details are kept with the usage', async () => {
    server.enqueue({
      type: 'raw',
      chunks: [
        chunk({ role: 'assistant', content: 'ok' }),
        chunk({}, 'stop'),
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 40, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 256 } } })}\n\n`,
        'data: [DONE]\n\n',
      ],
    });
    const { events, error } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(error, undefined);
    assert.deepEqual(ofType(events, 'usage').map((e) => e.usage), [{ inputTokens: 40, outputTokens: 300, cacheReadTokens: 32, reasoningTokens: 256 }]);
  });

  it('a connection reset after finish_reason loses only the usage chunk', async () => {
    server.enqueue({ type: 'raw', chunks: [chunk({ content: 'complete answer' }), chunk({}, 'stop')], then: 'reset' });
    const { events, error } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(error, undefined);
    assert.equal(textOf(events), 'complete answer');
    assert.equal(ofType(events, 'usage').length, 0);
    assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'end_turn' });
  });

  it('ignores reasoning deltas and keep-alive comments', async () => {
    server.enqueue({
      type: 'raw',
      chunks: [': ping\n\n', chunk({ reasoning_content: 'hmm' }), chunk({ reasoning: 'still thinking' }), chunk({ content: 'Answer.' }), chunk({}, 'stop'), 'data: [DONE]\n\n'],
    });
    const { events, error } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(error, undefined);
    assert.equal(textOf(events), 'Answer.');
  });

  it('a server that ignores include_usage gives no usage event', async () => {
    server.enqueue({ type: 'raw', chunks: [chunk({ content: 'hi' }), chunk({}, 'length'), 'data: [DONE]\n\n'] });
    const { events } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(ofType(events, 'usage').length, 0);
    assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'max_tokens' });
  });

  it("LM Studio's and llama.cpp's context errors are context_too_long and not retried", async () => {
    const { sleep, delays } = recordingSleep();
    const provider = createOpenAIProvider({ baseUrl: server.url, retry: { sleep } });
    server.enqueue({
      type: 'error',
      status: 400,
      body: { error: 'The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input.' },
    });
    assert.equal((await run(provider, request())).error?.kind, 'context_too_long');
    server.enqueue({
      type: 'error',
      status: 500,
      body: { error: { code: 500, message: 'the request exceeds the available context size. try increasing the context size or enable context shift', type: 'exceed_context_size_error', n_prompt_tokens: 1407, n_ctx: 256 } },
    });
    assert.equal((await run(provider, request())).error?.kind, 'context_too_long');
    assert.deepEqual(delays, []);
    assert.equal(server.requests.length, 2);
  });

  it('an error sent as a 200 JSON body is still a typed error', async () => {
    server.enqueue({ type: 'error', status: 200, body: { error: { message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", type: 'BadRequestError' } } });
    const { error } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(error?.kind, 'context_too_long');
  });

  it("a proxy's HTML 502 page is a retryable server error with readable text", async () => {
    server.enqueue({ type: 'error', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } }, { type: 'reply', parts: [{ text: 'ok' }] });
    const { sleep } = recordingSleep();
    const retries: string[] = [];
    const { error, events } = await run(createOpenAIProvider({ baseUrl: server.url, retry: { sleep, onRetry: (i) => retries.push(i.error.message) } }), request());
    assert.equal(error, undefined);
    assert.equal(textOf(events), 'ok');
    assert.match(retries[0], /server error \(HTTP 502\): 502 Bad Gateway/);
  });

  it('a body that is not an event stream is malformed', async () => {
    server.enqueue({ type: 'error', status: 200, body: '<html>login page</html>', headers: { 'content-type': 'text/html' } });
    const { error } = await run(createOpenAIProvider({ baseUrl: server.url }), request());
    assert.equal(error?.kind, 'malformed');
  });

  it('without an API key sends no Authorization header; a trailing slash in the base URL is fine', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'local' }] });
    const provider = createOpenAIProvider({ baseUrl: `${server.url}/` });
    assert.equal(provider.id, 'openai-compatible');
    const { error } = await run(provider, request());
    assert.equal(error, undefined);
    assert.equal(server.requests[0].path, '/v1/chat/completions');
    assert.equal(server.requests[0].headers.authorization, undefined);
    assert.equal(server.requests[0].body.max_tokens, 1024);
  });

  it("OpenAI's own URL gets max_completion_tokens and the id 'openai'", async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
    const seen: string[] = [];
    const provider = createOpenAIProvider({
      apiKey: 'sk-test-000000000000',
      fetch: (url, init) => {
        seen.push(url);
        return fetch(url.replace('https://api.openai.com/v1', server.url), init);
      },
    });
    assert.equal(provider.id, 'openai');
    const { error } = await run(provider, request());
    assert.equal(error, undefined);
    assert.deepEqual(seen, ['https://api.openai.com/v1/chat/completions']);
    assert.equal(server.requests[0].body.max_completion_tokens, 1024);
    assert.equal(server.requests[0].body.max_tokens, undefined);
  });

  it('a server that is not running is a network error after the retries', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const { sleep, delays } = recordingSleep();
    const { error } = await run(createOpenAIProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, retry: { sleep, maxAttempts: 2 } }), request());
    assert.equal(error?.kind, 'network');
    assert.match(error!.message, /could not reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    assert.equal(delays.length, 1);
  });

  it('the fake rejects tool messages that answer no call, as OpenAI does', async () => {
    const { error } = await run(
      createOpenAIProvider({ baseUrl: server.url }),
      request([message({ role: 'user', content: 'x' }), message({ role: 'tool', content: 'orphan', toolCallId: 'call_zzz' })]),
    );
    assert.equal(error?.kind, 'bad_request');
    assert.match(error!.message, /must be a response to a preceeding message with 'tool_calls'/);
  });
});
