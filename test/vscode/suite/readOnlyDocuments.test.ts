import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { tallyApi as api, until } from './hostHelpers';

/** Checks what a user would notice: a named tab, not "Untitled-1 ●", that closes without asking to save. */
async function assertReadOnly(doc: vscode.TextDocument | undefined, name: RegExp): Promise<void> {
  assert.ok(doc, 'a document was opened');
  assert.equal(doc.uri.scheme, 'tally-view');
  assert.equal(doc.isUntitled, false);
  assert.equal(doc.isDirty, false);
  assert.match(decodeURIComponent(doc.uri.path.split('/').pop() ?? ''), name);
  assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), doc.uri.toString(), 'it is shown');
  // Typing does nothing: the editor of a content-provider document is read-only.
  const before = doc.getText();
  await vscode.commands.executeCommand('type', { text: 'typed by the user' });
  assert.equal(doc.getText(), before, 'typing does not change the document');
  assert.equal(doc.isDirty, false);
  await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === doc.uri.toString()), 'closed without a save prompt');
}

describe('Everything Tally opens is a read-only document with a useful title', () => {
  const config = () => vscode.workspace.getConfiguration('tally');
  let server: FakeOpenAIServer;
  before(async () => {
    server = await new FakeOpenAIServer({ apiKey: undefined }).start();
    await config().update('provider', 'openai-compatible', vscode.ConfigurationTarget.Global);
    await config().update('model', 'scripted-model', vscode.ConfigurationTarget.Global);
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
    await config().update('approval.commands', 'always', vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const key of ['provider', 'model', 'baseUrl', 'approval.commands']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('opens results, request items, instructions and export previews under tally-view:, named by tool, command and request', async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('read-only documents');
    server.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command: 'yes tally | head -c 20000' }) } }], usage: null });
    server.enqueue({ type: 'reply', parts: [{ text: 'Done.' }], usage: null });
    await t.sessions.send('Print a lot.');
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    const store = await t.sessions.store();
    const blobs = await store.listBlobs(session.info.id);
    assert.equal(blobs.length, 1, 'the large output was offloaded');

    await assertReadOnly(await vscode.commands.executeCommand<vscode.TextDocument>('tally.openResult', blobs[0].id), /^run_command yes tally ∣?.*· request #\d+ \(full result\)\.txt$/);
    const usage = await store.listRequestUsage(session.info.id);
    const lastRequest = usage[usage.length - 1];
    const toolPosition = lastRequest.items.findIndex((i) => i.role === 'tool');
    const itemDoc = await vscode.commands.executeCommand<vscode.TextDocument>('tally.openRequestItem', lastRequest.requestIndex, toolPosition);
    assert.ok(itemDoc?.getText().length, 'the item has its text');
    await assertReadOnly(itemDoc, new RegExp(`^tool result · run_command yes tally.* · request #${lastRequest.requestIndex}\\.txt$|^run_command yes tally.* · request #${lastRequest.requestIndex}\\.txt$`));
    // The next request's items as the inspector lists them (and the command opens them): find the user's message among them.
    const now = await t.sessions.current();
    const nextItems = now.contextSession.planNextRequest().items;
    const userDoc = await vscode.commands.executeCommand<vscode.TextDocument>('tally.openRequestItem', undefined, nextItems.findIndex((i) => i.role === 'user'));
    assert.equal(userDoc?.getText(), 'Print a lot.');
    await assertReadOnly(userDoc, /^user · next request\.txt$/);
    // A prompt part of the next request opens to the text the request before it carried.
    const instructions = nextItems.findIndex((i) => i.kind === 'agents-md');
    const instructionsDoc = await vscode.commands.executeCommand<vscode.TextDocument>('tally.openRequestItem', undefined, instructions);
    assert.match(instructionsDoc?.getText() ?? '', /^Project instructions \(workspace\/AGENTS\.md\):\n# Project rules/);
    await assertReadOnly(instructionsDoc, /· next request\.txt$/);

    await vscode.commands.executeCommand('tally.showLoadedInstructions');
    await assertReadOnly(vscode.window.activeTextEditor?.document, /^Tally loaded instructions\.md$/);

    const exported = await vscode.commands.executeCommand<string>('tally.exportSession', { format: 'markdown', preview: true });
    const exportDoc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === exported);
    assert.match(exportDoc?.getText() ?? '', /^# read-only documents/);
    await assertReadOnly(exportDoc, /^Export of read-only documents \(not saved yet\)\.md$/);
  });

  it('gives two results with alike long commands two tabs, each with its own text, and shows a bidi override in the name', async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('alike results');
    const prefix = 'yes tally-alike-results-with-a-long-shared-beginning-of-the-command';
    const commands = [`${prefix}-one | head -c 20000`, `${prefix}-two | head -c 20000`, 'yes "x\u202Eyz" | head -c 20000'];
    // One reply calls all three, so their results go out in the same request and their titles name the same one.
    server.enqueue({ type: 'reply', parts: commands.map((command) => ({ toolCall: { name: 'run_command', arguments: JSON.stringify({ command }) } })), usage: null });
    server.enqueue({ type: 'reply', parts: [{ text: 'Done.' }], usage: null });
    await t.sessions.send('Print three times.');
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    const store = await t.sessions.store();
    const blobs = await store.listBlobs(session.info.id);
    assert.equal(blobs.length, 3, 'the three outputs were offloaded');
    const docs: vscode.TextDocument[] = [];
    for (const blob of blobs) docs.push((await vscode.commands.executeCommand<vscode.TextDocument>('tally.openResult', blob.id))!);
    const [one, two, bidi] = ['-one', '-two', 'yz'].map((mark) => docs.find((d) => d.getText().includes(mark))!);
    assert.ok(one && two && bidi, 'each result opened with its own text');
    assert.notEqual(one.uri.toString(), two.uri.toString());
    assert.match(one.getText(), /-one\n/);
    assert.doesNotMatch(one.getText(), /-two/, 'opening the second did not replace the first one\'s text');
    assert.match(two.getText(), /-two\n/);
    const name = one.uri.path.split('/').pop() ?? '';
    assert.equal(name, two.uri.path.split('/').pop(), 'the names alone are alike (both cut at 60 characters)');
    assert.match(bidi.uri.path.split('/').pop() ?? '', /^run_command yes "x⟨U\+202E⟩yz" \| head -c 20000 · request #\d+ \(full result\)\.txt$/);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens a result from the inspector beside it, so the inspector stays in view', async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('beside the inspector');
    server.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command: 'yes beside | head -c 20000' }) } }], usage: null });
    server.enqueue({ type: 'reply', parts: [{ text: 'Done.' }], usage: null });
    await t.sessions.send('Print a lot beside.');
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    const [blob] = await (await t.sessions.store()).listBlobs(session.info.id);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('tally.openInspector');
    const isInspector = (tab: vscode.Tab | undefined) => tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('tally.inspector');
    await until('the inspector is the active tab', () => isInspector(vscode.window.tabGroups.activeTabGroup.activeTab));
    const inspectorGroup = vscode.window.tabGroups.activeTabGroup;
    const doc = await vscode.commands.executeCommand<vscode.TextDocument>('tally.openResult', blob.id);
    const shownIn = vscode.window.tabGroups.all.find((g) => g.tabs.some((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === doc?.uri.toString()));
    assert.ok(shownIn, 'the result is shown');
    assert.notEqual(shownIn.viewColumn, inspectorGroup.viewColumn, 'in another column than the inspector');
    assert.ok(isInspector(inspectorGroup.activeTab), 'the inspector is still the tab its column shows');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
