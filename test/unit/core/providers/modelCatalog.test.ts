import { strict as assert } from 'assert';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { listModels } from '../../../../src/core/providers/models/modelCatalog';
import { servedWindow } from '../../../../src/core/providers/models/servedWindow';
import { FakeAnthropicCatalogServer, FakeLocalModelServer } from '../../../fakes/modelListServers';

const QWEN = { id: 'qwen2.5-coder:14b', arch: 'qwen2', trainedWindow: 32_768 };
const LLAMA = { id: 'llama3.1:8b', arch: 'llama', trainedWindow: 131_072, numCtx: 16_384 };

describe('listing models over HTTP (local fake servers)', () => {
  it('vLLM: the list with the served window of each model', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'vllm', models: [{ id: 'Qwen/Qwen2.5-Coder-14B-Instruct', trainedWindow: 16_384 }] }).start();
    try {
      const result = await listModels({ provider: 'openai-compatible', baseUrl: server.url });
      assert.ok(result.ok);
      assert.equal(result.server, 'vllm');
      assert.deepEqual(result.models.map((m) => [m.id, m.contextWindow]), [['Qwen/Qwen2.5-Coder-14B-Instruct', 16_384]]);
    } finally {
      await server.close();
    }
  });

  it('LM Studio: windows from its own REST API, loaded window first', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'lmstudio', models: [{ id: 'qwen2.5-coder-14b-instruct', trainedWindow: 32_768, loadedWindow: 8_192 }, { id: 'meta-llama-3.1-8b-instruct', trainedWindow: 131_072 }] }).start();
    try {
      const result = await listModels({ provider: 'openai-compatible', baseUrl: server.url });
      assert.ok(result.ok);
      assert.equal(result.server, 'lmstudio');
      assert.deepEqual(result.models.map((m) => [m.id, m.contextWindow]), [['meta-llama-3.1-8b-instruct', 131_072], ['qwen2.5-coder-14b-instruct', 8_192]]);
    } finally {
      await server.close();
    }
  });

  it('Ollama: num_ctx where the model sets one, the loaded window where loaded, else only a note (the trained window is not what it serves)', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'ollama', models: [QWEN, LLAMA], defaultWindow: 4_096 }).start();
    try {
      let result = await listModels({ provider: 'openai-compatible', baseUrl: server.url });
      assert.ok(result.ok);
      assert.equal(result.server, 'ollama');
      assert.deepEqual(result.models.map((m) => [m.id, m.contextWindow]), [['llama3.1:8b', 16_384], ['qwen2.5-coder:14b', undefined]]);
      assert.match(result.models[1].windowNote!, /trained for 32,768/);
      server.loaded.set('qwen2.5-coder:14b', 4_096);
      result = await listModels({ provider: 'openai-compatible', baseUrl: server.url });
      assert.ok(result.ok);
      assert.equal(result.models[1].contextWindow, 4_096);
    } finally {
      await server.close();
    }
  });

  it('Anthropic: every page, with the key and version headers', async () => {
    const models = Array.from({ length: 130 }, (_, i) => ({ id: `claude-test-${String(i).padStart(3, '0')}`, display_name: `Claude Test ${i}` }));
    const server = await new FakeAnthropicCatalogServer({ apiKey: 'sk-ant-test', models }).start();
    try {
      const result = await listModels({ provider: 'anthropic', baseUrl: server.url, apiKey: 'sk-ant-test' });
      assert.ok(result.ok);
      assert.equal(result.models.length, 130);
      assert.equal(result.models[0].label, 'Claude Test 0');
      const refused = await listModels({ provider: 'anthropic', baseUrl: server.url, apiKey: 'wrong' });
      assert.deepEqual(refused.ok ? undefined : refused.failure, 'unauthorized');
    } finally {
      await server.close();
    }
  });

  it('a server that is down, one that never answers, and one that is no model server each give a clear message', async () => {
    const down = await listModels({ provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' });
    assert.ok(!down.ok);
    assert.equal(down.failure, 'unreachable');
    assert.match(down.message, /Could not reach http:\/\/127\.0\.0\.1:9.*is the server running/);

    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const html = createServer((_req, res) => res.end('<html>hello</html>'));
    await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
    try {
      // A server that never answers: the listing ends on its deadline (without one it would hang past the test's timeout).
      const slow = await listModels({ provider: 'openai-compatible', baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`, timeoutMs: 300 });
      assert.ok(!slow.ok);
      assert.equal(slow.failure, 'timeout');
      const notJson = await listModels({ provider: 'openai-compatible', baseUrl: `http://127.0.0.1:${(html.address() as AddressInfo).port}/v1` });
      assert.ok(!notJson.ok);
      assert.equal(notJson.failure, 'format');
      assert.match(notJson.message, /not answer \/v1\/models with JSON/);
    } finally {
      silent.closeAllConnections();
      silent.close();
      html.close();
    }
  });
});

describe('the window an OpenAI-compatible server really serves', () => {
  it('Ollama, model not loaded: Tally loads it and plans for the window the server reports, not the trained one', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'ollama', models: [QWEN], defaultWindow: 4_096 }).start();
    try {
      const window = await servedWindow({ baseUrl: server.url, model: 'qwen2.5-coder:14b' });
      assert.equal(window?.tokens, 4_096);
      assert.equal(window?.server, 'ollama');
      assert.ok(server.requests.some((r) => r.path === '/api/generate'), 'the model was loaded');
    } finally {
      await server.close();
    }
  });

  it('Ollama with num_ctx in the model, and an older Ollama that does not report the loaded window', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'ollama', models: [LLAMA, QWEN], oldVersion: true }).start();
    try {
      assert.equal((await servedWindow({ baseUrl: server.url, model: 'llama3.1:8b' }))?.tokens, 16_384);
      const unknown = await servedWindow({ baseUrl: server.url, model: 'qwen2.5-coder:14b' });
      assert.equal(unknown?.tokens, undefined);
      assert.match(unknown!.note, /did not report/);
    } finally {
      await server.close();
    }
  });

  it('vLLM reports max_model_len; LM Studio the loaded window; a plain OpenAI-compatible server nothing', async () => {
    const vllm = await new FakeLocalModelServer({ flavour: 'vllm', models: [{ id: 'm', trainedWindow: 16_384 }] }).start();
    const lms = await new FakeLocalModelServer({ flavour: 'lmstudio', models: [{ id: 'm', trainedWindow: 32_768, loadedWindow: 8_192 }] }).start();
    try {
      assert.equal((await servedWindow({ baseUrl: vllm.url, model: 'm' }))?.tokens, 16_384);
      assert.equal((await servedWindow({ baseUrl: lms.url, model: 'm' }))?.tokens, 8_192);
      assert.equal(await servedWindow({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 500 }), undefined);
    } finally {
      await vllm.close();
      await lms.close();
    }
  });
});
