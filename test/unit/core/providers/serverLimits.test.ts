/**
 * A model server cannot hold the host: a listing or a window probe has one deadline for the whole
 * exchange (a server that sends the headers and then stalls is left with a clear error), and an
 * answer is read only up to a size cap while it streams (an endless body is cut and the
 * connection closed). The deadlines are given small here; the tests wait for the rejection.
 */
import { strict as assert } from 'assert';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { ANSWER_MAX_BYTES, listModels } from '../../../../src/core/providers/models/modelCatalog';
import { servedWindow } from '../../../../src/core/providers/models/servedWindow';
import { FloodingServer, StallingServer } from '../../../fakes/hostileServers';
import { FakeLocalModelServer } from '../../../fakes/modelListServers';
import type { FakeReply, RecordedRequest } from '../../../fakes/scriptedServer';
import { request, run } from './harness';

describe('a model server that stalls after the headers', function () {
  // Before the deadline covered the body these hung; fail instead of waiting for mocha's default.
  this.timeout(10_000);
  let server: StallingServer;
  beforeEach(async () => {
    server = await new StallingServer().start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('model listing (OpenAI-compatible and Anthropic) rejects with "no complete answer within" and closes the connection', async () => {
    const local = await listModels({ provider: 'openai-compatible', baseUrl: `${server.origin}/v1`, timeoutMs: 200 });
    assert.ok(!local.ok);
    assert.equal(local.failure, 'timeout');
    assert.match(local.message, new RegExp(`${server.origin.replace(/[./]/g, '\\$&')} gave no complete answer to GET /v1/models within 0\\.2 s`));
    const anthropic = await listModels({ provider: 'anthropic', baseUrl: server.origin, apiKey: 'sk-ant-test-key', timeoutMs: 200 });
    assert.ok(!anthropic.ok);
    assert.equal(anthropic.failure, 'timeout');
    await server.gone(2);
  });

  it('model listing keeps the list when the server stalls on the endpoints that give the windows, and asks it nothing more', async () => {
    class StallsOnWindows extends FakeLocalModelServer {
      protected override validate(request: RecordedRequest): FakeReply | undefined {
        return request.path.startsWith('/api/') ? { type: 'raw', chunks: [], then: 'stall' } : super.validate(request);
      }
    }
    const local = await new StallsOnWindows({ flavour: 'ollama', models: [{ id: 'qwen2.5-coder:14b', arch: 'qwen2', trainedWindow: 32_768 }] }).start();
    try {
      const result = await listModels({ provider: 'openai-compatible', baseUrl: local.url, timeoutMs: 1_000 });
      assert.ok(result.ok, result.ok ? '' : result.message);
      assert.deepEqual(result.models.map((m) => [m.id, m.contextWindow]), [['qwen2.5-coder:14b', undefined]]);
      assert.deepEqual(local.requests.map((r) => r.path), ['/v1/models', '/api/v0/models']);
    } finally {
      await local.close();
    }
  });

  it('the window probe of a session that opens stops at the first stalled request and says why in the window note', async () => {
    const served = await servedWindow({ baseUrl: `${server.origin}/v1`, model: 'qwen2.5-coder:14b', timeoutMs: 200, loadTimeoutMs: 200 });
    assert.equal(served?.tokens, undefined);
    assert.match(served?.note ?? '', /could not ask the server .* gave no complete answer to GET \/v1\/models within 0\.2 s/);
    assert.equal(server.requests.length, 1, 'nothing more is asked of a server that stalled');
  });
});

describe('a model server that sends an endless answer', () => {
  const SERVER_STOPS_AT = 64 * 1024 * 1024;
  let server: FloodingServer;
  beforeEach(async () => {
    server = await new FloodingServer({ limitBytes: SERVER_STOPS_AT }).start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('model listing stops reading at the cap with a clear error, and the server sees the client leave', async () => {
    const result = await listModels({ provider: 'openai-compatible', baseUrl: `${server.origin}/v1`, timeoutMs: 30_000 });
    assert.ok(!result.ok, 'the listing should not be read to its end');
    assert.equal(result.failure, 'too_large');
    assert.match(result.message, /the server's answer to GET \/v1\/models was larger than 4 MB/);
    await server.left;
    // What is in flight in the sockets' buffers at most; the server would have sent 64 MB.
    assert.ok(server.bytesSent < ANSWER_MAX_BYTES + 16 * 1024 * 1024, `the server sent ${server.bytesSent} bytes`);
  });

  it('the window probe stops at the cap and says why in the window note', async () => {
    const served = await servedWindow({ baseUrl: `${server.origin}/v1`, model: 'm', timeoutMs: 30_000 });
    assert.match(served?.note ?? '', /larger than 4 MB/);
    assert.equal(server.requests.length, 1);
    await server.left;
  });
});

describe('a chat error answer that never ends', () => {
  it('is read up to 1 MB: the error keeps its status, and the connection is closed', async () => {
    const server = await new FloodingServer({ limitBytes: 64 * 1024 * 1024, status: 500 }).start();
    try {
      const provider = createOpenAIProvider({ id: 'openai-compatible', baseUrl: `${server.origin}/v1`, retry: { maxAttempts: 1 } });
      const { error } = await run(provider, request());
      assert.equal(error?.kind, 'server');
      assert.equal(error.status, 500);
      await server.left;
    } finally {
      await server.close();
    }
  });
});
