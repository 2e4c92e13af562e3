import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { OTHER_MODEL_LABEL, runModelPicker } from '../../../src/commands/modelPicker';
import type { TallyApi } from '../../../src/extension';
import { StallingServer } from '../../fakes/hostileServers';
import { FakeAnthropicCatalogServer, FakeLocalModelServer } from '../../fakes/modelListServers';
import { scriptedUi } from '../harness/scriptedPickerUi';
import { until } from './liveSession';

describe('Select Model: the server lists its models, the key is asked in the same flow, the window is confirmed', () => {
  const config = () => vscode.workspace.getConfiguration('tally');
  let api: TallyApi;
  before(async () => {
    api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
  });
  afterEach(async () => {
    for (const key of ['provider', 'model', 'baseUrl']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    for (const provider of ['anthropic', 'openai-compatible'] as const) await api.keys.set(provider, '', undefined);
  });

  it("Ollama: the list shows each model's window, and Tally plans for the window the server loaded the model with", async () => {
    const server = await new FakeLocalModelServer({ flavour: 'ollama', defaultWindow: 4_096, models: [{ id: 'qwen2.5-coder:14b', arch: 'qwen2', trainedWindow: 32_768 }, { id: 'llama3.1:8b', arch: 'llama', trainedWindow: 131_072, numCtx: 16_384 }] }).start();
    try {
      const { ui, shown } = scriptedUi({ provider: 'OpenAI-compatible server', baseUrl: server.url, model: 'qwen2.5-coder:14b' });
      assert.equal(await runModelPicker(api.keys, ui), true);
      const models = shown.lists[1];
      assert.deepEqual(models.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator).map((i) => [i.label, i.description]), [
        ['llama3.1:8b', 'window 16,384 tokens'],
        ['qwen2.5-coder:14b', undefined],
        [OTHER_MODEL_LABEL, undefined],
      ]);
      assert.equal(shown.inputs.filter((i) => i.password).length, 0, 'no key asked: the server needs none');
      assert.equal(shown.info.length, 1);
      assert.match(shown.info[0], new RegExp(`Tally will use qwen2\\.5-coder:14b on OpenAI-compatible server \\(${server.url.replace('/v1', '').replace(/\./g, '\\.')}\\), window 4,096 tokens \\(reported by the server\\)`));
      assert.equal(config().inspect('baseUrl')?.globalValue, server.url);
      assert.equal(config().inspect('model')?.globalValue, 'qwen2.5-coder:14b');
      const session = await waitForChat(api, 'qwen2.5-coder:14b');
      assert.equal(session.chat!.model.contextWindow, 4_096, 'the meter plans for the served window, not the trained 32,768');
      assert.equal(session.chat!.window.source, 'server');
      assert.equal(session.contextSession.measure().warning, undefined, 'no "assumed" warning for a reported window');
      assert.equal(session.contextSession.measure().contextWindow, 4_096);
    } finally {
      await server.close();
    }
  });

  it('a server that needs a key: the refusal leads to the password prompt, the key is stored for that origin, then the list', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'vllm', apiKey: 'sk-local-test', models: [{ id: 'Qwen/Qwen2.5-Coder-7B-Instruct', trainedWindow: 16_384 }] }).start();
    try {
      const { ui, shown } = scriptedUi({ provider: 'OpenAI-compatible server', baseUrl: server.url, key: 'sk-local-test', model: 'Qwen/Qwen2.5-Coder-7B-Instruct' });
      assert.equal(await runModelPicker(api.keys, ui), true);
      const asked = shown.inputs.filter((i) => i.password);
      assert.equal(asked.length, 1);
      assert.match(asked[0].prompt, /needs a valid API key.*sent only to http:\/\/127\.0\.0\.1:\d+/);
      assert.deepEqual(await api.keys.getBound('openai-compatible'), { key: 'sk-local-test', origin: new URL(server.url).origin });
      assert.match(shown.info[0], /window 16,384 tokens \(reported by the server\)/);
    } finally {
      await server.close();
    }
  });

  it('Anthropic with no key stored: the key is asked before listing, sent to the server, and the registry window is confirmed', async () => {
    const server = await new FakeAnthropicCatalogServer({ apiKey: 'sk-ant-test', models: [{ id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5' }] }).start();
    try {
      await config().update('provider', 'anthropic', vscode.ConfigurationTarget.Global);
      await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
      const { ui, shown } = scriptedUi({ provider: 'Anthropic', key: 'sk-ant-test', model: 'Claude Sonnet 4.5' });
      assert.equal(await runModelPicker(api.keys, ui), true);
      assert.equal(shown.inputs.filter((i) => i.password).length, 1);
      assert.equal(server.requests.at(-1)?.headers['x-api-key'], 'sk-ant-test');
      assert.match(shown.info[0], /Tally will use claude-sonnet-4-5-20250929 on Anthropic .*window 200,000 tokens \(from the model registry\)/);
    } finally {
      await server.close();
    }
  });

  it('a server that is down: the reason is shown and "Other model…" still lets the user type an id', async () => {
    const { ui, shown } = scriptedUi({ provider: 'OpenAI-compatible server', baseUrl: 'http://127.0.0.1:9/v1', model: OTHER_MODEL_LABEL });
    ui.input = async (options) => (options.title.includes('address') ? 'http://127.0.0.1:9/v1' : 'my-model');
    assert.equal(await runModelPicker(api.keys, ui), true);
    assert.match(shown.placeholders[1] ?? '', /Could not reach http:\/\/127\.0\.0\.1:9.*Other model/);
    assert.equal(config().inspect('model')?.globalValue, 'my-model');
    assert.match(shown.info[0], /assumed/);
  });

  it('a server that sends its headers and then nothing: the list says so once the limit passes, and the session opens with a window note saying why', async () => {
    const server = await new StallingServer().start();
    try {
      const baseUrl = `${server.origin}/v1`;
      const { ui, shown } = scriptedUi({ provider: 'OpenAI-compatible server', baseUrl, model: OTHER_MODEL_LABEL });
      ui.input = async (options) => (options.title.includes('address') ? baseUrl : 'stalled-model');
      assert.equal(await runModelPicker(api.keys, ui), true);
      assert.match(shown.placeholders[1] ?? '', /gave no complete answer to GET \/v1\/models within 5 s.*Other model/);
      assert.match(shown.info[0], /stalled-model .*assumed/);
      const session = await waitForChat(api, 'stalled-model');
      assert.match(session.chat!.window.note ?? '', /gave no complete answer to GET \/v1\/models within 3 s/);
    } finally {
      await server.close();
    }
  });
});

async function waitForChat(api: TallyApi, model: string) {
  await until(`the session has ${model}`, async () => (await api.sessions.current()).chat?.model.id === model);
  return api.sessions.current();
}
