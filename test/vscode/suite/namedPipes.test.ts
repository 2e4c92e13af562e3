import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { mkdirSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { tallyApi } from './hostHelpers';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

describe('Named pipes in the VS Code workspace', function () {
  // Before the fix the first call waited for ever and the extension host's file operations after four.
  this.timeout(60_000);
  const base = () => join(folder(), 'pipes');
  beforeEach(async () => {
    mkdirSync(base(), { recursive: true });
    writeFileSync(join(base(), 'plain.txt'), 'plain text\n');
    for (const name of ['a', 'b', 'c', 'd']) execFileSync('mkfifo', [join(base(), name)]);
    await vscode.workspace.getConfiguration('tally').update('approval.edits', 'always', vscode.ConfigurationTarget.Global);
  });
  afterEach(async () => {
    await vscode.workspace.getConfiguration('tally').update('approval.edits', undefined, vscode.ConfigurationTarget.Global);
    rmSync(base(), { recursive: true, force: true });
  });

  it('read_file, search_text, edit_file and write_file on pipes answer at once, and four of them leave the host reading files', async () => {
    const { agents } = await tallyApi();
    const run = async (name: string, args: Record<string, unknown>) => String((await agents.runWorkspaceTool({ id: `pipe-${name}-${Math.random()}`, name, arguments: JSON.stringify(args) })).output);
    const outputs = await Promise.all([
      run('read_file', { path: 'pipes/a' }),
      run('search_text', { query: 'x', path: 'pipes/b' }),
      run('edit_file', { path: 'pipes/c', old_text: 'x', new_text: 'y' }),
      run('write_file', { path: 'pipes/d', content: 'into the pipe\n' }),
    ]);
    assert.match(outputs[0], /pipes\/a is a named pipe \(FIFO\), not a regular file; not read/);
    assert.match(outputs[1], /^No matches/);
    assert.match(outputs[2], /pipes\/c is a named pipe \(FIFO\), not a regular file/);
    assert.match(outputs[3], /pipes\/d is a named pipe \(FIFO\), not a regular file; nothing was written/);
    assert.match(await run('read_file', { path: 'pipes/plain.txt' }), /1 {2}plain text/);
    const doc = await vscode.workspace.openTextDocument(join(base(), 'plain.txt'));
    assert.equal(doc.getText(), 'plain text\n', 'VS Code itself still reads files');
  });
});
