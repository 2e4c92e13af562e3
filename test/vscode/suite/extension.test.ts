import { strict as assert } from 'assert';
import { readdirSync, readFileSync, statSync } from 'fs';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { dirname, join } from 'path';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';
import { until } from './hostHelpers';

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
    const m = session.contextSession;
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

  it('Set API Key keeps the key in SecretStorage only: used for a request, then found in no setting, log, database or export', async () => {
    const { sessions, lifecycle, keys, folders } = await api();
    const secret = 'sk-ant-TEST-0123456789abcdef';
    // A local stand-in for Anthropic that rejects the key and echoes it back, as some proxies do.
    const seenKeys: string[] = [];
    const server = createServer((req, res) => {
      seenKeys.push(String(req.headers['x-api-key']));
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${secret}` } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const config = vscode.workspace.getConfiguration('tally');
    try {
      await config.update('provider', 'anthropic', vscode.ConfigurationTarget.Global);
      await config.update('model', 'claude-sonnet-4-5', vscode.ConfigurationTarget.Global);
      await config.update('baseUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, vscode.ConfigurationTarget.Global);
      assert.equal(await vscode.commands.executeCommand('tally.setApiKey', { provider: 'anthropic', key: secret }), true);
      assert.equal(await keys.get('anthropic'), secret);
      await sessions.create('key test');
      await sessions.send('Hello?');
      assert.deepEqual(seenKeys, [secret], 'the key went to the provider, in its header, once (401 is not retried)');
      const notice = (sessions.shown?.state.endedTurnNotices ?? []).map((n) => n.text).join('\n');
      assert.match(notice, /authentication/i, 'the user is told why');
      assert.ok(!notice.includes(secret), 'the echoed key is not shown');
      assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('tally')).includes(secret));
      const store = await sessions.store();
      await store.flush();
      const exported = await vscode.commands.executeCommand<string>('tally.exportSession', { format: 'json', target: join(lifecycle.storageFolder, 'export.json') });
      // The log channel writes to disk asynchronously: wait until the error is there.
      const logFiles = () => filesUnder(dirname(folders.log)).filter((f) => f.endsWith('.log'));
      await until('the error reached a log file', () => logFiles().some((f) => /authentication/i.test(readFileSync(f, 'utf8'))));
      const userSettings = join(folders.globalStorage, '..', '..', 'settings.json');
      assert.match(readFileSync(userSettings, 'utf8'), /"tally\.provider": "anthropic"/, 'the user settings file is the one written');
      const searched = [...filesUnder(lifecycle.storageFolder), exported!, ...logFiles(), userSettings, ...filesUnder(dirname(folders.globalStorage)).filter((f) => !/state\.vscdb/.test(f))];
      for (const file of searched) assert.ok(!readFileSync(file).includes(Buffer.from(secret)), `${file} does not contain the key`);
    } finally {
      for (const key of ['provider', 'model', 'baseUrl']) await config.update(key, undefined, vscode.ConfigurationTarget.Global);
      server.close();
    }
  });

  it('Open Demo Replay imports the bundled run and compacts it for real', async () => {
    const { sessions } = await api();
    const id = await vscode.commands.executeCommand<string>('tally.openDemoReplay');
    assert.ok(id);
    const store = await sessions.store();
    assert.ok((await store.listRequestUsage(id!)).length > 50);
    assert.ok((await store.listCompactionEvents(id!)).length > 0);
    assert.equal(sessions.active?.replayLabel?.startsWith('demo'), true);
  });

  it('runs the other commands: inspector, new and resumed sessions, loaded instructions, a transcript', async () => {
    const { sessions, lifecycle } = await api();
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
    const markdown = await vscode.commands.executeCommand<string>('tally.exportSession', { format: 'markdown', target: join(lifecycle.storageFolder, 'export.md') });
    assert.match(readFileSync(markdown!, 'utf8'), /^# demo-run\.traj\.json/);
  });

  it('loads the workspace AGENTS.md and the workspace skills of a trusted workspace', async () => {
    const { agents } = await api();
    const report = await agents.loadInstructions();
    assert.match(report.text, /Run `npm test` before committing/);
    const skills = await agents.loadSkills();
    assert.deepEqual(skills.skills.filter((s) => s.origin === 'workspace').map((s) => [s.name, s.description]), [['release-notes', 'Write release notes from the git log.']]);
  });
});
