import { strict as assert } from 'assert';
import { readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

const EXTENSION_ID = 'tally-dev.tally';

async function api(): Promise<TallyApi> {
  const extension = vscode.extensions.getExtension<TallyApi>(EXTENSION_ID);
  assert.ok(extension, 'the extension is installed');
  return extension.activate();
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('Tally in VS Code', () => {
  it('activates, and the workspace is trusted in this run', async () => {
    await api();
    assert.equal(await vscode.commands.executeCommand('tally.ping'), 'pong');
    assert.equal(vscode.workspace.isTrusted, true);
  });

  it('registers every contributed command', async () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: Array<{ command: string; category: string }> } };
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of manifest.contributes.commands) {
      assert.ok(registered.has(c.command), `${c.command} is registered`);
      assert.equal(c.category, 'Tally');
    }
  });

  it('Compact Context on a seeded session changes the stored history and records an event', async () => {
    const { sessions } = await api();
    const session = await sessions.create('seeded');
    const m = session.manager;
    await m.append({ id: 'u1', role: 'user', kind: 'user', content: 'Investigate the build.', agentVisible: true, userVisible: true, createdAt: 0 });
    for (let i = 0; i < 30; i++) {
      const call = { id: `c${i}`, name: 'run_command', arguments: JSON.stringify({ command: `make step${i}` }) };
      await m.append({ id: `a${i}`, role: 'assistant', kind: 'assistant', content: `Step ${i}.`, toolCalls: [call], agentVisible: true, userVisible: true, createdAt: 0 });
      await m.recordToolResult(call, `build line ${i}\n`.repeat(150));
    }
    const before = m.messages.map((x) => x.id).join();
    const text = await vscode.commands.executeCommand<string>('tally.compactContext', '');
    assert.match(text, /^Compacted context: [\d,]+ → [\d,]+ tokens/);
    assert.notEqual(m.messages.map((x) => x.id).join(), before);
    const store = await sessions.store();
    const events = await store.listCompactionEvents(session.info.id);
    assert.equal(events.length, 1);
    assert.equal(events[0].trigger, 'manual');
    assert.ok((await store.loadSnapshot(session.info.id)) !== undefined);
  });

  it('Set API Key stores the key in SecretStorage only: not in settings, not in the database', async () => {
    const { sessions, keys } = await api();
    const secret = 'sk-ant-TEST-0123456789abcdef';
    assert.equal(await vscode.commands.executeCommand('tally.setApiKey', { provider: 'anthropic', key: secret }), true);
    assert.equal(await keys.get('anthropic'), secret);
    assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('tally')).includes(secret));
    const store = await sessions.store();
    await store.flush();
    const exported = await vscode.commands.executeCommand<string>('tally.exportSession', { format: 'json', target: join(sessions.storageFolder, 'export.json') });
    for (const file of [...filesUnder(sessions.storageFolder), exported]) {
      assert.ok(!readFileSync(file).includes(Buffer.from(secret)), `${file} does not contain the key`);
    }
  });

  it('Open Demo Replay imports the bundled run and compacts it for real', async () => {
    const { sessions } = await api();
    const id = await vscode.commands.executeCommand<string>('tally.openDemoReplay');
    assert.ok(id);
    const store = await sessions.store();
    assert.ok((await store.listTurnUsage(id!)).length > 50);
    assert.ok((await store.listCompactionEvents(id!)).length > 0);
    assert.equal(sessions.active?.replayLabel?.startsWith('demo'), true);
  });

  it('runs the other commands: inspector, new and resumed sessions, loaded instructions, a transcript', async () => {
    const { sessions } = await api();
    assert.equal(await vscode.commands.executeCommand('tally.openInspector'), true);
    const created = await vscode.commands.executeCommand<string>('tally.newSession');
    assert.ok(created);
    assert.equal(await vscode.commands.executeCommand('tally.resumeSession', created), created);
    assert.equal(sessions.active?.info.id, created);
    const instructions = await vscode.commands.executeCommand<string>('tally.showLoadedInstructions');
    assert.match(instructions, /AGENTS\.md`? — \d+ bytes — \*\*loaded\*\*/);
    const demo = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'media', 'demo', 'demo-run.traj.json');
    const replayed = await vscode.commands.executeCommand<string>('tally.openTranscript', demo);
    assert.ok(replayed && replayed !== created);
    const markdown = await vscode.commands.executeCommand<string>('tally.exportSession', { format: 'markdown', target: join(sessions.storageFolder, 'export.md') });
    assert.match(readFileSync(markdown!, 'utf8'), /^# demo-run\.traj\.json/);
  });

  it('loads the workspace AGENTS.md', async () => {
    const { agents } = await api();
    const report = await agents.loadInstructions();
    assert.match(report.text, /Run `npm test` before committing/);
  });
});
