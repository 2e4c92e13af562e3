import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { tallyApi as api, until } from './hostHelpers';

/** The demo is a replay, read-only; choosing a model while it is open names that model in the toolbar at once. */
describe('Choosing a model while the demo is open', () => {
  it('the toolbar names the model chosen, and the demo stays read-only', async function () {
    this.timeout(120_000);
    const t = await api();
    const config = () => vscode.workspace.getConfiguration('tally');
    const before = { contextWindow: config().inspect('contextWindow')?.globalValue, provider: config().inspect('provider')?.globalValue, model: config().inspect('model')?.globalValue, baseUrl: config().inspect('baseUrl')?.globalValue };
    await config().update('provider', undefined, vscode.ConfigurationTarget.Global);
    await config().update('contextWindow', 64_000, vscode.ConfigurationTarget.Global);
    await config().update('model', undefined, vscode.ConfigurationTarget.Global);
    const server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    try {
      const demoId = await vscode.commands.executeCommand<string>('tally.openDemoReplay');
      await until('the demo is shown', async () => (await t.sessions.current()).info.id === demoId);
      await t.lifecycle.whileChangingSettings(async () => {
        await config().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
        await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
        await config().update('model', 'demo-chosen-model', vscode.ConfigurationTarget.Global);
      });
      await until('the toolbar names the model', async () => {
        const current = await t.sessions.current();
        return current.info.id === demoId && current.state.chatState().model?.id === 'demo-chosen-model';
      }, 30_000);
      const current = await t.sessions.current();
      assert.equal(current.agent, undefined, 'the demo gets no agent: it is read-only');
      assert.match(current.state.chatState().banner ?? '', /This is a replay of a recorded run/);
    } finally {
      await t.lifecycle.whileChangingSettings(async () => {
        for (const [key, value] of Object.entries(before)) await config().update(key, value, vscode.ConfigurationTarget.Global);
      });
      // The tests after this one chat: leave a session with the model ready, not the read-only demo.
      await t.sessions.create('after the demo');
      await server.close();
    }
  });
});
