import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { runModelPicker } from '../../../src/commands/modelPicker';
import type { TallyApi } from '../../../src/extension';
import { FakeLocalModelServer } from '../../fakes/modelListServers';
import { scriptedUi } from '../harness/scriptedPickerUi';
import { api as activated } from './liveSession';

describe('Settings changes reopen the session once, before the next message', () => {
  const config = () => vscode.workspace.getConfiguration('tally');
  let api: TallyApi;
  before(async () => {
    api = await activated();
  });
  afterEach(async () => {
    for (const key of ['provider', 'model', 'baseUrl']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
  });

  it('Select Model writes three settings and the session is opened again once, with the chosen model ready for the next use', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'ollama', defaultWindow: 8_192, models: [{ id: 'reopen-model:7b', arch: 'qwen2', trainedWindow: 32_768 }] }).start();
    await api.sessions.current(); // reopens left by earlier tests' settings resets are done
    const opened = new Set<unknown>();
    const watch = api.lifecycle.onDidResume(() => opened.add(api.sessions.active));
    try {
      const before = api.sessions.active;
      const { ui } = scriptedUi({ provider: 'OpenAI-compatible server', baseUrl: server.url, model: 'reopen-model:7b' });
      assert.equal(await api.lifecycle.whileChangingSettings(() => runModelPicker(api.keys, ui)), true);
      // No waiting: the next use of the session sees the new settings.
      const session = await api.sessions.current();
      assert.equal(session.chat?.model.id, 'reopen-model:7b');
      opened.delete(before);
      opened.delete(undefined);
      assert.equal(opened.size, 1, 'one new session object for three settings written');
    } finally {
      watch.dispose();
      await server.close();
    }
  });

  it('settings written one by one: the next use of the session sees the last one, with at most one reopen per write', async () => {
    const server = await new FakeLocalModelServer({ flavour: 'ollama', defaultWindow: 8_192, models: [{ id: 'burst-model:1b', arch: 'qwen2', trainedWindow: 32_768 }] }).start();
    await api.sessions.current(); // reopens left by earlier tests' settings resets are done
    const opened = new Set<unknown>();
    const watch = api.lifecycle.onDidResume(() => opened.add(api.sessions.active));
    try {
      const before = api.sessions.active;
      await config().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
      await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
      await config().update('model', 'burst-model:1b', vscode.ConfigurationTarget.Global);
      const session = await api.sessions.current();
      assert.equal(session.chat?.model.id, 'burst-model:1b', 'the next use sees the last setting written');
      opened.delete(before);
      opened.delete(undefined);
      assert.ok(opened.size >= 1 && opened.size <= 3, `${opened.size} reopens for three writes`);
    } finally {
      watch.dispose();
      await server.close();
    }
  });
});
