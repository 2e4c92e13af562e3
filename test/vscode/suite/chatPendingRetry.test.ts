import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { api, until } from './liveSession';

describe('Chat: the first message with no model, and Retry', () => {
  const config = () => vscode.workspace.getConfiguration('tally');
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await new FakeOpenAIServer().start();
  });
  afterEach(async () => {
    for (const key of ['provider', 'model', 'baseUrl']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('keeps a message sent with no model configured and sends it once, when a model is chosen', async () => {
    const { sessions } = await api();
    await config().update('model', '', vscode.ConfigurationTarget.Global);
    const session = await sessions.create('no model yet');
    assert.equal(session.agent, undefined, 'no model, no agent');
    await sessions.send('Explain the loader.');
    assert.equal(sessions.pendingMessage, 'Explain the loader.');
    const store = await sessions.store();
    assert.equal((await store.loadTranscript(session.info.id)).length, 0, 'nothing was sent');
    server.enqueue({ type: 'reply', parts: [{ text: 'The loader reads the config.' }] });
    await config().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('model', 'scripted-model', vscode.ConfigurationTarget.Global);
    await until('the reply is stored', async () => (await store.loadTranscript(session.info.id)).some((m) => m.role === 'assistant'));
    const users = (await store.loadTranscript(session.info.id)).filter((m) => m.kind === 'user');
    assert.deepEqual(users.map((m) => m.content), ['Explain the loader.']);
    assert.equal(sessions.pendingMessage, undefined);
    assert.equal(server.requests.length, 1, 'sent exactly once');
  });

  it('Retry sends the failed message again and the history holds it once', async () => {
    const { sessions } = await api();
    await config().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('model', 'scripted-model', vscode.ConfigurationTarget.Global);
    await until('the model is ready', async () => Boolean((await sessions.current()).agent));
    const session = await sessions.create('retry');
    server.enqueue({ type: 'error', status: 400, body: { error: { message: 'Scripted failure.', type: 'invalid_request_error', param: null, code: null } } });
    await sessions.send('Fix the build.');
    assert.equal(sessions.canRetry, true);
    server.enqueue({ type: 'reply', parts: [{ text: 'Fixed.' }] });
    await sessions.retry();
    const store = await sessions.store();
    const visible = (await store.loadTranscript(session.info.id)).filter((m) => m.userVisible && m.kind === 'user');
    assert.deepEqual(visible.map((m) => m.content), ['Fix the build.'], 'the chat shows the message once');
    const last = server.requests[server.requests.length - 1].body as { messages: Array<{ role: string; content: string }> };
    assert.deepEqual(last.messages.filter((m) => m.role === 'user').map((m) => m.content), ['Fix the build.'], 'the model sees it once');
    assert.equal(sessions.canRetry, false);
  });
});
