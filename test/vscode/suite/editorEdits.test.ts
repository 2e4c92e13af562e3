import { strict as assert } from 'assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { nextApproval, toolResults, withFakeModel } from '../harness/markerTool';
import { runAndDeny, tallyApi, until } from './hostHelpers';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

/** The model's reply that calls one tool. */
function callTool(id: string, name: string, args: Record<string, unknown>) {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }] };
}

/** Diff tabs whose sides are Tally's read-only proposal documents (of the file named `file`, when given). */
function proposalDiffTabs(file?: string): vscode.TabInputTextDiff[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .map((t) => t.input)
    .filter((input): input is vscode.TabInputTextDiff => input instanceof vscode.TabInputTextDiff && input.modified.scheme === 'tally-diff')
    .filter((input) => file === undefined || input.modified.path.endsWith(`/${file}`) || input.modified.path === file);
}

async function discardAndCloseAll(): Promise<void> {
  for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file')) {
    // A buffer left unsaved over a file an earlier test removed (its revert went to another editor
    // that had the focus) cannot be shown again, and has nothing on disk to go back to.
    if (!existsSync(doc.uri.fsPath)) continue;
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

describe('Edits through the editor: buffers, undo and the approval diff', function () {
  this.timeout(90_000);
  const files: string[] = [];
  const file = (name: string, text: string) => {
    const path = join(folder(), name);
    writeFileSync(path, text);
    files.push(path);
    return path;
  };
  // Suites before this one may leave editors open (a proposal's diff of another file among them):
  // each test starts with none, so the diff it waits for is its own.
  beforeEach(discardAndCloseAll);
  afterEach(async () => {
    await discardAndCloseAll();
    for (const path of files.splice(0)) rmSync(path, { force: true });
  });

  it('an approved edit shows the diff editor while it waits, lands in the editor and on disk, and Undo restores the previous text', async () => {
    const path = file('undo-me.txt', 'one\ntwo\nthree\n');
    await withFakeModel(async ({ api, server, approvals }) => {
      const doc = await vscode.workspace.openTextDocument(path);
      await vscode.window.showTextDocument(doc);
      await api.sessions.create('edit and undo');
      server.enqueue(callTool('call_edit', 'edit_file', { path: 'undo-me.txt', old_text: 'two', new_text: 'TWO' }), { type: 'reply', parts: [{ text: 'edited' }] });
      const turn = api.sessions.send('Capitalise two.');
      const request = await nextApproval(approvals, 1);
      assert.equal(request.kind, 'edit');
      await until('the diff editor opened', () => proposalDiffTabs('undo-me.txt').length === 1);
      const diff = proposalDiffTabs('undo-me.txt')[0];
      assert.equal(diff.original.scheme, 'tally-diff', 'both sides are read-only proposal documents, not untitled ones');
      assert.equal((await vscode.workspace.openTextDocument(diff.original)).getText(), 'one\ntwo\nthree\n');
      assert.equal((await vscode.workspace.openTextDocument(diff.modified)).getText(), 'one\nTWO\nthree\n');
      api.sessions.resolveApproval(request.callId, true);
      await turn;
      await until('the diff closed once answered', () => proposalDiffTabs('undo-me.txt').length === 0);
      assert.equal(doc.getText(), 'one\nTWO\nthree\n');
      assert.equal(doc.isDirty, false, 'a document without unsaved changes is saved after the edit');
      assert.equal(readFileSync(path, 'utf8'), 'one\nTWO\nthree\n');
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      await until('undo restored the text', () => doc.getText() === 'one\ntwo\nthree\n');
    });
  });

  it('edits answered the moment they ask, before their diff has opened, leave no diff open', async () => {
    file('quick.txt', 'one\n');
    const { agents } = await tallyApi();
    for (const id of Array.from({ length: 10 }, (_, i) => `quick-${i}`)) {
      const result = await runAndDeny(agents, id, 'write_file', { path: 'quick.txt', content: 'two\n' });
      assert.equal(result.asked, true, result.output);
    }
    await until('every diff closed', () => proposalDiffTabs().length === 0);
    assert.equal(readFileSync(join(folder(), 'quick.txt'), 'utf8'), 'one\n');
  });

  it('read_file and search_text see an unsaved buffer, and an edit applies to the buffer, keeping the unsaved change', async () => {
    const path = file('unsaved.txt', 'alpha\nbeta\n');
    // code-server saves a second after a change by default (VS Code for the web does); the unsaved
    // line must stay unsaved however long the turn takes.
    const files = vscode.workspace.getConfiguration('files');
    await files.update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    try {
      await unsavedBufferTurn(path);
    } finally {
      await files.update('autoSave', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  async function unsavedBufferTurn(path: string): Promise<void> {
    await withFakeModel(async ({ api, server, approvals }) => {
      const doc = await vscode.workspace.openTextDocument(path);
      const editor = await vscode.window.showTextDocument(doc);
      await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'UNSAVED\n'));
      assert.equal(doc.isDirty, true);
      await api.sessions.create('unsaved buffer');
      server.enqueue(
        callTool('call_read', 'read_file', { path: 'unsaved.txt' }),
        callTool('call_search', 'search_text', { query: 'UNSAVED', path: 'unsaved.txt' }),
        callTool('call_edit', 'edit_file', { path: 'unsaved.txt', old_text: 'beta', new_text: 'BETA' }),
        { type: 'reply', parts: [{ text: 'done' }] },
      );
      const turn = api.sessions.send('Read it, then edit it.');
      const request = await nextApproval(approvals, 1);
      api.sessions.resolveApproval(request.callId, true);
      await turn;
      const [read, search, edit] = (await toolResults(api)).slice(-3);
      assert.match(read, /1 {2}UNSAVED\n2 {2}alpha\n3 {2}beta/, 'read_file returned the editor text, not the disk');
      assert.equal(search, 'unsaved.txt:1: UNSAVED', 'search_text searched the editor text, as read_file reads it');
      assert.match(edit, /Edited unsaved\.txt/);
      assert.match(edit, /not saved to disk yet/);
      assert.equal(doc.getText(), 'UNSAVED\nalpha\nBETA\n', 'the edit applied to the buffer and kept the unsaved line');
      assert.equal(doc.isDirty, true, 'the user\'s unsaved work is not saved for them');
      assert.equal(readFileSync(path, 'utf8'), 'alpha\nbeta\n', 'the disk keeps what the user last saved');
    });
  }

  it('Reject from the diff editor leaves the file unchanged, closes the diff and records a denial', async () => {
    const path = file('reject-me.txt', 'keep me\n');
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('reject in diff');
      server.enqueue(callTool('call_write', 'write_file', { path: 'reject-me.txt', content: 'replaced\n' }), { type: 'reply', parts: [{ text: 'ok' }] });
      const turn = api.sessions.send('Overwrite it.');
      await nextApproval(approvals, 1);
      await until('the diff editor opened', () => proposalDiffTabs('reject-me.txt').length === 1);
      const diff = proposalDiffTabs('reject-me.txt')[0];
      assert.equal((await vscode.workspace.openTextDocument(diff.modified)).getText(), 'replaced\n');
      assert.equal(await vscode.commands.executeCommand('tally.rejectEdit', diff.modified), true);
      await turn;
      await until('the diff closed', () => proposalDiffTabs().length === 0);
      assert.equal(readFileSync(path, 'utf8'), 'keep me\n');
      assert.equal((await toolResults(api)).at(-1), 'The user denied writing reject-me.txt.');
      const store = await api.sessions.store();
      const result = (await store.loadTranscript(api.sessions.active!.info.id)).filter((m) => m.role === 'tool').at(-1);
      assert.equal(result?.meta?.denied, true);
    });
  });

  it('Accept from a made-up tally-diff: address naming a pending command does not approve it: it stays pending and does not run', async () => {
    const ran = join(folder(), 'crafted-accept-ran.txt');
    files.push(ran);
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('crafted diff accept');
      server.enqueue(callTool('call_cmd', 'run_command', { command: 'echo ran > crafted-accept-ran.txt' }), { type: 'reply', parts: [{ text: 'ok' }] });
      const turn = api.sessions.send('Run it.');
      const request = await nextApproval(approvals, 1);
      assert.equal(request.kind, 'command');
      const crafted = [`tally-diff:/README.md?call=${request.callId}`, `tally-diff:/README.md?call=${request.callId}&side=after`, `tally-diff:/README.md?edit=${request.callId}&side=after`];
      for (const uri of crafted) assert.equal(await vscode.commands.executeCommand('tally.acceptEdit', vscode.Uri.parse(uri)), false, `refuses ${uri}`);
      assert.equal(await vscode.commands.executeCommand('tally.rejectEdit', vscode.Uri.parse(crafted[0])), false);
      assert.equal(existsSync(ran), false, 'the command did not run');
      assert.equal((await toolResults(api)).length, 0, 'the call is still waiting for its answer');
      api.sessions.resolveApproval(request.callId, false);
      await turn;
      assert.equal((await toolResults(api)).at(-1), 'The user denied running this command.', 'the answer that counted was the one from the chat');
      assert.equal(existsSync(ran), false);
    });
  });

  it('"Allow `<command>` for this session" on a command card runs it again (with more plain words) without asking, but not chained lines', async () => {
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('command prefix');
      server.enqueue(
        callTool('call_c1', 'run_command', { command: 'echo prefix-one' }),
        callTool('call_c2', 'run_command', { command: 'echo prefix-one again' }),
        callTool('call_c3', 'run_command', { command: 'echo prefix-one && echo chained' }),
        { type: 'reply', parts: [{ text: 'ran' }] },
      );
      const turn = api.sessions.send('Run them.');
      const first = await nextApproval(approvals, 1);
      assert.equal(first.allowForSession, '`echo prefix-one` (plus more plain words) in the workspace folder', 'the card offers the command and says what it covers');
      api.sessions.resolveApproval(first.callId, true, true);
      const chained = await nextApproval(approvals, 2);
      assert.equal(chained.command, 'echo prefix-one && echo chained', 'the second command ran without a card; the chained one asks');
      api.sessions.resolveApproval(chained.callId, false);
      await turn;
      const results = (await toolResults(api)).slice(-3);
      assert.match(results[0], /^prefix-one\n/);
      assert.match(results[1], /^prefix-one again\n/);
      assert.equal(results[2], 'The user denied running this command.');
    });
  });
});
