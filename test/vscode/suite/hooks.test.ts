import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import { toolResults, withFakeModel } from '../harness/markerTool';

describe('Hooks in the VS Code extension host', function () {
  this.timeout(120_000);
  let scripts: string;
  let workspaceHooks: string;
  beforeEach(() => {
    scripts = mkdtempSync(join(tmpdir(), 'tally-vscode-hooks-'));
    workspaceHooks = join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.tally', 'hooks.json');
  });
  afterEach(async () => {
    rmSync(scripts, { recursive: true, force: true });
    rmSync(workspaceHooks, { force: true });
    await vscode.workspace.getConfiguration('tally').update('hooks', undefined, vscode.ConfigurationTarget.Global);
  });

  it("a user-settings hook denies a command with its reason, and a trusted workspace's .tally/hooks.json adds context to the next request", async () => {
    const deny = join(scripts, 'deny.sh');
    writeFileSync(deny, 'cat >/dev/null; echo "no commands on Fridays" >&2; exit 2\n');
    await vscode.workspace.getConfiguration('tally').update('hooks', { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh '${deny}'` }] }] }, vscode.ConfigurationTarget.Global);
    mkdirSync(join(workspaceHooks, '..'), { recursive: true });
    writeFileSync(workspaceHooks, JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'LS', hooks: [{ type: 'command', command: `cat >/dev/null; echo '{"hookSpecificOutput":{"additionalContext":"workspace hook was here"}}'` }] }] } }));
    await withFakeModel(async ({ api, server }) => {
      await api.sessions.create('hooks');
      server.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'call_h1', name: 'run_command', arguments: JSON.stringify({ command: 'echo hi' }) } }, { toolCall: { id: 'call_h2', name: 'list_files', arguments: '{}' } }] }, { type: 'reply', parts: [{ text: 'ok' }] });
      await api.sessions.send('Run it.');
      assert.match((await toolResults(api)).join('\n'), /denied this call: no commands on Fridays/);
      assert.match(JSON.stringify(server.requests.at(-1)!.body), /workspace hook was here/);
    });
  });
});
