import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';
import { runModelPicker } from '../../../src/commands/modelPicker';
import { scriptedUi } from '../harness/scriptedPickerUi';
import { until } from './liveSession';

const PROVIDER_EXTENSION = 'tally-test.lm-provider';

interface ScriptedModelApi {
  requests: Array<{ extensionId: string; messages: number; tools: string[]; toolResult?: string }>;
  register(): void;
  unregister(): void;
}

async function scriptedModel(): Promise<ScriptedModelApi> {
  const scripted = (await vscode.extensions.getExtension<ScriptedModelApi>(PROVIDER_EXTENSION)!.activate()) as ScriptedModelApi;
  scripted.register();
  await until('VS Code lists the scripted model', async () => (await vscode.lm.selectChatModels({ vendor: 'tally-test' })).length > 0, 30_000);
  return scripted;
}

describe('The default provider (vscode-lm) with a model another extension registers', () => {
  const config = () => vscode.workspace.getConfiguration('tally');
  afterEach(async () => {
    for (const key of ['provider', 'model']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    ((await vscode.extensions.getExtension<ScriptedModelApi>(PROVIDER_EXTENSION)!.activate()) as ScriptedModelApi).unregister();
  });

  it('runs a full turn with a tool call: the model calls read_file, gets its result, answers; the chat and the inspector records have it', async () => {
    const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    const scripted = await scriptedModel();
    const [model] = await vscode.lm.selectChatModels({ vendor: 'tally-test' });
    assert.equal(model.maxInputTokens, 60_000);

    await config().update('provider', 'vscode-lm', vscode.ConfigurationTarget.Global);
    await config().update('model', model.id, vscode.ConfigurationTarget.Global);
    await until('the chat has the vscode-lm model', async () => (await api.sessions.current()).chat?.provider.id === 'vscode-lm', 30_000);
    const session = await api.sessions.create('vscode-lm turn');
    assert.equal(session.chat?.window.source, 'server', 'the window is what VS Code reports');

    const before = scripted.requests.length;
    const errors: string[] = [];
    const events = api.sessions.onAgentEvent((e) => {
      if (e.type === 'error') errors.push(`${e.kind}: ${e.message}`);
    });
    await api.sessions.send('What does src/math.ts define?');
    const store = await api.sessions.store();
    try {
      await until('the answer is stored', async () => (await store.loadTranscript(session.info.id)).some((m) => m.role === 'assistant' && m.content.includes('[scripted vscode-lm model]')), 30_000);
    } catch (error) {
      const seen = (await store.loadTranscript(session.info.id)).map((m) => `${m.role}: ${m.content.slice(0, 80)}`);
      throw new Error(`${(error as Error).message}; errors: ${errors.join(' | ')}; history: ${seen.join(' | ')}; model saw: ${JSON.stringify(scripted.requests.slice(before))}`);
    } finally {
      events.dispose();
    }

    const transcript = await store.loadTranscript(session.info.id);
    const call = transcript.find((m) => m.role === 'assistant' && (m.toolCalls ?? []).some((c) => c.name === 'read_file'));
    assert.ok(call, 'the tool call is in the history');
    const result = transcript.find((m) => m.role === 'tool');
    assert.ok(result?.content.includes('export function add'), `read_file ran on the workspace file: ${result?.content}`);
    const answer = transcript.filter((m) => m.role === 'assistant').at(-1)!;
    assert.match(answer.content, /The file starts with: .*export function add/);

    const sent = scripted.requests.slice(before);
    assert.equal(sent.length, 2, 'two requests: the call, then the answer');
    assert.ok(sent[0].tools.includes('read_file'), `Tally offered its tools: ${sent[0].tools.join(', ')}`);
    assert.equal(sent[0].extensionId, 'tally-dev.tally');
    assert.ok(sent[1].toolResult?.includes('export function add'), 'the tool result went back to the model');

    const records = await store.listRequestUsage(session.info.id, { items: false });
    assert.ok(records.length >= 2, `the inspector has a record of each request (${records.length})`);
    assert.equal(records.at(-1)!.contextWindow, session.chat!.model.contextWindow);
  });

  it('Select Model lists the models VS Code has, with vendor and input window, and confirms the choice', async () => {
    const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    await scriptedModel();
    const { ui, shown } = scriptedUi({ provider: 'VS Code Language Models', model: 'Scripted test model' });
    assert.equal(await runModelPicker(api.keys, ui), true);
    const offered = shown.lists[1].find((i) => i.label === 'Scripted test model');
    assert.equal(offered?.description, 'tally-test · 60,000 tokens input');
    assert.equal(config().inspect('provider')?.globalValue, 'vscode-lm');
    assert.equal(config().inspect('model')?.globalValue, 'scripted');
    assert.deepEqual(shown.info, ['Tally will use Scripted test model (tally-test) through VS Code, window 60,000 tokens of input (reported by VS Code).']);
  });

  it('a chat opened before any model takes the model as soon as VS Code lists it, in the same session, without New Session', async () => {
    const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    for (const key of ['provider', 'model']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    const provider = (await vscode.extensions.getExtension<ScriptedModelApi>(PROVIDER_EXTENSION)!.activate()) as ScriptedModelApi;
    provider.unregister();
    await until('VS Code lists no chat model', async () => (await vscode.lm.selectChatModels({})).length === 0, 30_000);
    const session = await api.sessions.create('before any model');
    assert.equal(session.chat, undefined, 'the session opened without a model');
    provider.register();
    await until('the open session has the model', () => api.sessions.active?.chat?.label === 'Scripted test model (tally-test)', 30_000);
    assert.equal(api.sessions.active?.info.id, session.info.id, 'the same session, not a new one');
  });
});
