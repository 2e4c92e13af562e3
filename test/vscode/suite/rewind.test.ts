import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { restoreTurnFiles, rewindToMessage, type RewindPorts } from '../../../src/host/chat/rewindFlow';
import type { TallyApi } from '../../../src/extension';
import { nextApproval, withFakeModel } from '../harness/markerTool';
import { until } from './hostHelpers';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

function callTool(id: string, name: string, args: Record<string, unknown>) {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }] };
}

/** The real ports, with the modal answered by `answer` and the composer's text kept. */
function portsAnswering(api: TallyApi, answer: string): { ports: RewindPorts; asked: string[]; composer: string[] } {
  const asked: string[] = [];
  const composer: string[] = [];
  const ports = api.rewind.ports({
    askModal: async (message, detail) => {
      asked.push(`${message}\n${detail}`);
      return answer;
    },
    editText: (text) => composer.push(text),
  });
  return { ports, asked, composer };
}

async function userMessageId(api: TallyApi, text: string): Promise<string> {
  const store = await api.sessions.store();
  const found = (await store.loadTranscript(api.sessions.active!.info.id)).find((m) => m.kind === 'user' && m.content === text);
  assert.ok(found, `no user message "${text}"`);
  return found.id;
}

function checkpointDiffTabs(): vscode.TabInputTextDiff[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .map((t) => t.input)
    .filter((input): input is vscode.TabInputTextDiff => input instanceof vscode.TabInputTextDiff && input.modified.scheme === 'tally-checkpoint');
}

describe('Restore files and rewind in VS Code', function () {
  this.timeout(120_000);
  const made: string[] = [];
  const file = (name: string, text?: string) => {
    const path = join(folder(), name);
    if (text !== undefined) writeFileSync(path, text);
    made.push(path);
    return path;
  };
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const path of made.splice(0)) rmSync(path, { force: true });
  });

  it('restores files after an edit: a diff per file, the open editor shows the text before the turn, and the file the turn created is deleted', async () => {
    const edited = file('restore-edit.txt', 'alpha\nbeta\n');
    const created = file('restore-created.txt');
    await withFakeModel(async ({ api, server, approvals }) => {
      const doc = await vscode.workspace.openTextDocument(edited);
      await vscode.window.showTextDocument(doc);
      await api.sessions.create('restore after an edit');
      server.enqueue(
        callTool('call_edit', 'edit_file', { path: 'restore-edit.txt', old_text: 'beta', new_text: 'BETA' }),
        callTool('call_create', 'write_file', { path: 'restore-created.txt', content: 'made by the agent\n' }),
        { type: 'reply', parts: [{ text: 'done' }] },
      );
      const turn = api.sessions.send('Capitalise beta and add a file.');
      api.sessions.resolveApproval((await nextApproval(approvals, 1)).callId, true);
      api.sessions.resolveApproval((await nextApproval(approvals, 2)).callId, true);
      await turn;
      assert.equal(doc.getText(), 'alpha\nBETA\n');
      assert.ok(existsSync(created));
      const messageId = await userMessageId(api, 'Capitalise beta and add a file.');
      await until('the turn offers its files', async () => (await api.rewind.turnFilesOf(api.sessions.active!.info.id)).some((t) => t.messageId === messageId && t.files === 2));

      const { ports, asked } = portsAnswering(api, 'Restore Files');
      let diffsWhileAsked = -1;
      const outcome = await restoreTurnFiles({ ...ports, askModal: async (...args) => ((diffsWhileAsked = checkpointDiffTabs().length), ports.askModal(...args)) }, messageId);
      assert.equal(diffsWhileAsked, 2, 'a diff per file was shown before the question');
      assert.equal(checkpointDiffTabs().length, 0, 'and closed once answered');
      assert.match(asked[0], /^Restore 2 files to before “Capitalise beta and add a file\.”\?/);
      assert.deepEqual(outcome?.failed, []);
      assert.equal(doc.getText(), 'alpha\nbeta\n', 'the open editor shows the restored text');
      assert.equal(doc.isDirty, false);
      assert.equal(readFileSync(edited, 'utf8'), 'alpha\nbeta\n');
      assert.equal(existsSync(created), false, 'the file the turn created is gone');
      const history = await (await api.sessions.store()).listCompactionEvents(api.sessions.active!.info.id);
      assert.deepEqual(history.map((e) => [e.trigger, e.step?.files?.length]), [['restore', 2]]);
      const [turnFiles] = (await api.rewind.turnFilesOf(api.sessions.active!.info.id)).filter((t) => t.messageId === messageId);
      assert.equal(turnFiles.restoredAt, history[0].startedAt, 'the turn says its files were restored, and when, instead of offering the restore again');
    });
  });

  it('restores files after a writing command: what it rewrote comes back and what it created is removed', async () => {
    const target = file('restore-command.txt', 'before the command\n');
    const created = file('restore-command-made.txt');
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('restore after a command');
      server.enqueue(
        callTool('call_run', 'run_command', { command: "printf 'rewritten\\n' > restore-command.txt && printf 'new\\n' > restore-command-made.txt" }),
        { type: 'reply', parts: [{ text: 'ran it' }] },
      );
      const turn = api.sessions.send('Run the generator.');
      api.sessions.resolveApproval((await nextApproval(approvals, 1)).callId, true);
      await turn;
      assert.equal(readFileSync(target, 'utf8'), 'rewritten\n');
      const messageId = await userMessageId(api, 'Run the generator.');
      const { ports } = portsAnswering(api, 'Restore Files');
      const outcome = await restoreTurnFiles(ports, messageId);
      assert.deepEqual(outcome?.restored.sort(), ['restore-command-made.txt', 'restore-command.txt']);
      assert.equal(readFileSync(target, 'utf8'), 'before the command\n');
      assert.equal(existsSync(created), false);
    });
  });

  it("leaves what the user saved in the editor while a command ran: the confirmation names it, and only the command's changes are restored", async () => {
    const target = file('restore-during-command.txt', 'before the command\n');
    const notes = file('restore-user-notes.md', 'my notes\n');
    const created = file('restore-user-new.md');
    const started = file('restore-command-started.txt');
    const gate = file('restore-command-gate.fifo');
    execFileSync('mkfifo', [gate]);
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('restore around the user');
      server.enqueue(
        // The command waits on a pipe until the test has done what the user does meanwhile.
        callTool('call_run', 'run_command', { command: "printf started > restore-command-started.txt && cat restore-command-gate.fifo > /dev/null && printf 'from the command\\n' > restore-during-command.txt" }),
        { type: 'reply', parts: [{ text: 'ran it' }] },
      );
      const turn = api.sessions.send('Run the slow generator.');
      api.sessions.resolveApproval((await nextApproval(approvals, 1)).callId, true);
      await until('the command runs', () => existsSync(started));
      // The user, in VS Code: a new file made (as the explorer makes one), and an edit to another saved.
      const make = new vscode.WorkspaceEdit();
      make.createFile(vscode.Uri.file(created), { contents: new TextEncoder().encode('a new file of mine\n') });
      assert.ok(await vscode.workspace.applyEdit(make), 'a new file');
      assert.equal(readFileSync(created, 'utf8'), 'a new file of mine\n', 'the new file is on disk');
      const edited = await vscode.workspace.openTextDocument(notes);
      const editor = await vscode.window.showTextDocument(edited);
      await editor.edit((e) => e.insert(new vscode.Position(1, 0), 'a line I added\n'));
      assert.ok(await edited.save(), 'the edit is saved');
      writeFileSync(gate, 'go\n');
      await turn;
      assert.equal(readFileSync(target, 'utf8'), 'from the command\n');

      const messageId = await userMessageId(api, 'Run the slow generator.');
      const { ports, asked } = portsAnswering(api, 'Restore Files');
      const outcome = await restoreTurnFiles(ports, messageId);
      assert.match(asked[0], /Left as they are, because not only the agent changed them: restore-user-new\.md \(created in VS Code while the turn ran; restoring deletes it\), restore-user-notes\.md \(saved in the editor while the turn ran\)/);
      assert.deepEqual(outcome?.restored.sort(), ['restore-command-started.txt', 'restore-during-command.txt']);
      assert.equal(readFileSync(target, 'utf8'), 'before the command\n', "the command's change is undone");
      assert.equal(readFileSync(created, 'utf8'), 'a new file of mine\n', "the user's new file is not deleted");
      assert.equal(readFileSync(notes, 'utf8'), 'my notes\na line I added\n', "the user's edit is not rolled back");
    });
  });

  it('rewinds to before a message, puts its text in the composer, and the edited message is sent on the rewound context', async () => {
    await withFakeModel(async ({ api, server }) => {
      await api.sessions.create('rewind and resend');
      server.enqueue({ type: 'reply', parts: [{ text: 'The loader reads config.json.' }] });
      await api.sessions.send('What does the loader read?');
      server.enqueue({ type: 'reply', parts: [{ text: 'Renamed everything.' }] });
      await api.sessions.send('Rename every variable.');
      const messageId = await userMessageId(api, 'Rename every variable.');
      const { ports, asked, composer } = portsAnswering(api, 'Rewind');
      const record = await rewindToMessage(ports, messageId);
      assert.match(asked[0], /^Rewind to before “Rename every variable\.”\?\nThe conversation goes back to before this message: 2 messages are set aside/);
      assert.deepEqual(composer, ['Rename every variable.']);
      assert.equal(record?.trigger, 'rewind');
      server.enqueue({ type: 'reply', parts: [{ text: 'Renamed the two loader variables.' }] });
      await api.sessions.send('Rename the loader variables only.');
      const last = server.requests[server.requests.length - 1].body as { messages: Array<{ role: string; content: string }> };
      assert.deepEqual(last.messages.filter((m) => m.role === 'user').map((m) => m.content), ['What does the loader read?', 'Rename the loader variables only.'], 'the model never sees the rewound message');
      const store = await api.sessions.store();
      assert.equal((await store.loadTranscript(api.sessions.active!.info.id)).filter((m) => m.kind === 'user').length, 3, 'the transcript keeps everything');
    });
  });

  it('a rewind past a failed turn drops its error and Retry', async () => {
    await withFakeModel(async ({ api, server }) => {
      await api.sessions.create('rewind a failed turn');
      server.enqueue({ type: 'error', status: 400, body: { error: { message: 'Scripted failure.', type: 'invalid_request_error', param: null, code: null } } });
      await api.sessions.send('Fix the build.');
      assert.equal(api.sessions.canRetry, true);
      const { ports } = portsAnswering(api, 'Rewind');
      await rewindToMessage(ports, await userMessageId(api, 'Fix the build.'));
      assert.equal(api.sessions.canRetry, false, 'Retry would send a message the rewind set aside');
      assert.deepEqual(api.sessions.shown?.state.endedTurnNotices, [], 'the error notice is gone');
    });
  });
});
