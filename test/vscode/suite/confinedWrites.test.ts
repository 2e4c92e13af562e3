import { strict as assert } from 'assert';
import { spawn, type ChildProcess } from 'child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { restoreTurnFiles } from '../../../src/host/chat/rewindFlow';
import { nextApproval, withFakeModel } from '../harness/markerTool';
import { tallyApi, until } from './hostHelpers';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

function callTool(id: string, name: string, args: Record<string, unknown>) {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }] };
}

/** A process that swaps `target` for a link to `outside` and back, as fast as it can, until killed. */
async function startSwapper(target: string, outside: string): Promise<ChildProcess> {
  const script = `
    const fs = require('fs');
    const [folder, outside] = process.argv.slice(1);
    const aside = folder + '.real';
    process.stdout.write('ready\\n');
    for (;;) {
      try { fs.renameSync(folder, aside); fs.symlinkSync(outside, folder); } catch {}
      try { fs.unlinkSync(folder); fs.renameSync(aside, folder); } catch {}
    }`;
  const child = spawn(process.execPath, ['-e', script, target, outside], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child;
}

async function stop(child: ChildProcess, target: string): Promise<void> {
  const exit = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exit;
  // Leave the folder in place, whichever moment the swapper was killed at.
  if (!existsSync(join(target, '.')) && existsSync(`${target}.real`)) {
    rmSync(target, { force: true });
    renameSync(`${target}.real`, target);
  }
}

describe('Writes in VS Code stay in the workspace while a folder on the way is swapped for a link', function () {
  this.timeout(240_000);
  let outside: string;
  const made: string[] = [];

  beforeEach(async () => {
    outside = join(folder(), '..', `outside-${process.pid}-${Date.now()}`);
    mkdirSync(outside);
    made.push(outside);
    await vscode.workspace.getConfiguration('tally').update('approval.edits', 'always', vscode.ConfigurationTarget.Global);
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('tally').update('approval.edits', undefined, vscode.ConfigurationTarget.Global);
    for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  it('with edits: always, 150 write_file calls (new files and an existing one) racing a swapper: none lands outside', async () => {
    const race = join(folder(), 'race');
    made.push(race);
    const sub = join(race, 'sub');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'existing.txt'), 'line 0\n');
    writeFileSync(join(outside, 'existing.txt'), 'line 0\n');
    const { agents } = await tallyApi();
    const swapper = await startSwapper(sub, outside);
    const outputs: string[] = [];
    try {
      for (let i = 0; i < 150; i++) {
        const call =
          i % 3 === 2
            ? { id: `race-${i}`, name: 'write_file', arguments: JSON.stringify({ path: 'race/sub/existing.txt', content: `line ${i}\n` }) }
            : { id: `race-${i}`, name: 'write_file', arguments: JSON.stringify({ path: `race/sub/new-${i}.txt`, content: `write ${i}\n` }) };
        outputs.push(String((await agents.runWorkspaceTool(call)).output));
      }
    } finally {
      await stop(swapper, sub);
    }
    assert.deepEqual(readdirSync(outside).sort(), ['existing.txt'], `nothing was written outside; results:\n${outputs.slice(0, 5).join('\n')}`);
    assert.equal(readFileSync(join(outside, 'existing.txt'), 'utf8'), 'line 0\n');
    const written = outputs.filter((o) => /^(Created|Wrote) race\/sub\//.test(o)).length;
    assert.ok(written > 0, `some writes happened inside: ${outputs.slice(0, 5).join('\n')}`);
  });

  it('a folder swapped for a link while the Restore dialog is open: the restore writes and deletes nothing outside and names the file it could not restore', async () => {
    const base = join(folder(), 'restore-race');
    made.push(base);
    const sub = join(base, 'sub');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'file.txt'), 'before\n');
    writeFileSync(join(outside, 'file.txt'), 'outside, keep me\n');
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('restore while swapped');
      server.enqueue(callTool('call_edit', 'edit_file', { path: 'restore-race/sub/file.txt', old_text: 'before', new_text: 'after' }), { type: 'reply', parts: [{ text: 'done' }] });
      const turn = api.sessions.send('Edit the file.');
      if (approvals.length) api.sessions.resolveApproval((await nextApproval(approvals, 1)).callId, true);
      await turn;
      assert.equal(readFileSync(join(sub, 'file.txt'), 'utf8'), 'after\n');
      const store = await api.sessions.store();
      const message = (await store.loadTranscript(api.sessions.active!.info.id)).find((m) => m.kind === 'user' && m.content === 'Edit the file.')!;
      await until('the turn offers its files', async () => (await api.rewind.turnFilesOf(api.sessions.active!.info.id)).some((t) => t.messageId === message.id));
      const ports = api.rewind.ports({
        askModal: async () => {
          // While the dialog is open, the folder becomes a link to a folder outside.
          renameSync(sub, `${sub}.aside`);
          symlinkSync(outside, sub);
          return 'Restore Files';
        },
        editText: () => undefined,
      });
      const outcome = await restoreTurnFiles(ports, message.id);
      assert.equal(readFileSync(join(outside, 'file.txt'), 'utf8'), 'outside, keep me\n', 'the file outside is untouched');
      assert.deepEqual(readdirSync(outside), ['file.txt']);
      assert.deepEqual(outcome?.restored, []);
      assert.equal(outcome?.failed.length, 1);
      assert.match(JSON.stringify(outcome?.failed), /restore-race\/sub\/file\.txt/);
    });
  });
});
