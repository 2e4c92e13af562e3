import { strict as assert } from 'assert';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { nextApproval, toolResults, withFakeModel } from '../harness/markerTool';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const SECRET = 'aws_secret_access_key = OUTSIDE-SECRET-9012\n';

function callTool(id: string, name: string, args: Record<string, unknown>) {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }] };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('Files that run code, hard links and names starting with two dots, in the VS Code workspace', function () {
  this.timeout(120_000);
  const created: string[] = [];

  beforeEach(async () => {
    await vscode.workspace.getConfiguration('tally').update('approval.edits', 'always', vscode.ConfigurationTarget.Global);
    // code-server saves after a delay by default; the unsaved text below must stay unsaved.
    await vscode.workspace.getConfiguration('files').update('autoSave', 'off', vscode.ConfigurationTarget.Global);
  });
  afterEach(async () => {
    for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file')) {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const path of created.splice(0)) rmSync(path, { recursive: true, force: true });
    await vscode.workspace.getConfiguration('tally').update('approval.edits', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('files').update('autoSave', undefined, vscode.ConfigurationTarget.Global);
  });

  it('with edits: always, writing a file that runs code asks and says why; ..env is written without asking', async () => {
    const paths = ['.cargo/config.toml', 'eslint.config.mjs', '.mocharc.js', 'settings.gradle', 'gradle/wrapper/gradle-wrapper.properties'];
    created.push(...['.cargo', 'eslint.config.mjs', '.mocharc.js', 'settings.gradle', 'gradle', '..env'].map((p) => join(folder(), p)));
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('files that run code');
      server.enqueue(
        ...paths.map((path, i) => callTool(`call_code_${i}`, 'write_file', { path, content: 'x\n' })),
        callTool('call_env', 'write_file', { path: '..env', content: 'KEY=1\n' }),
        { type: 'reply', parts: [{ text: 'done' }] },
      );
      const turn = api.sessions.send('Write the configuration files.');
      for (const [i, path] of paths.entries()) {
        const request = await nextApproval(approvals, i + 1);
        assert.match(request.reason ?? '', new RegExp(`^Asking because ${escaped(path)} `), path);
        api.sessions.resolveApproval(request.callId, false);
      }
      await turn;
      assert.equal(approvals.length, paths.length, 'the ..env write did not ask');
      assert.match(approvals[1].reason ?? '', /eslint\.config\.mjs is loaded as code by ESLint/);
      for (const path of paths) assert.equal(existsSync(join(folder(), path)), false, `${path} was not written`);
      assert.equal(readFileSync(join(folder(), '..env'), 'utf8'), 'KEY=1\n');
      assert.match((await toolResults(api)).slice(-1)[0] ?? '', /^Created \.\.env/);
    });
  });

  it('a hard-linked file: read_file asks (its unsaved editor text too), search_text skips it, write_file is refused, the other name keeps its text', async () => {
    const outside = join(folder(), '..', `outside-secret-${process.pid}.txt`);
    const linked = join(folder(), 'linked.txt');
    created.push(outside, linked);
    writeFileSync(outside, SECRET);
    linkSync(outside, linked);
    await withFakeModel(async ({ api, server, approvals }) => {
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(linked));
      await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'UNSAVED\n'));
      assert.equal(editor.document.isDirty, true);
      await api.sessions.create('hard links');
      server.enqueue(
        callTool('call_read', 'read_file', { path: 'linked.txt' }),
        callTool('call_search', 'search_text', { query: 'OUTSIDE-SECRET' }),
        callTool('call_write', 'write_file', { path: 'linked.txt', content: 'overwritten\n' }),
        { type: 'reply', parts: [{ text: 'done' }] },
      );
      const turn = api.sessions.send('Read linked.txt, then rewrite it.');
      const request = await nextApproval(approvals, 1);
      assert.equal(request.kind, 'read');
      assert.match(request.title, /linked\.txt has 2 hard links, so it may be a file from outside the workspace/);
      api.sessions.resolveApproval(request.callId, false);
      await turn;
      assert.equal(approvals.length, 1, 'the write did not ask: it was refused');
      const [read, search, write] = (await toolResults(api)).slice(-3);
      assert.match(read, /The user denied reading linked\.txt\./);
      assert.doesNotMatch(read, /OUTSIDE-SECRET/);
      assert.equal(search, 'No matches for "OUTSIDE-SECRET".');
      assert.match(write, /linked\.txt has 2 hard links, so writing it could change a file outside the workspace; nothing was written/);
      assert.equal(readFileSync(outside, 'utf8'), SECRET);
    });
  });
});
