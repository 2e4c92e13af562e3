import { strict as assert } from 'assert';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { dirname, join } from 'path';
import * as vscode from 'vscode';
import { nextApproval, toolResults, withFakeModel } from '../harness/markerTool';

function callTool(id: string, name: string, args: Record<string, unknown>) {
  return { type: 'reply' as const, parts: [{ toolCall: { id, name, arguments: JSON.stringify(args) } }] };
}

describe("The agent's commands in the sandbox, in the VS Code extension host", function () {
  this.timeout(120_000);
  let outside: string;
  beforeEach(() => (outside = mkdtempSync('/var/tmp/tally-vscode-sandbox-')));
  afterEach(async () => {
    rmSync(outside, { recursive: true, force: true });
    await vscode.workspace.getConfiguration('tally').update('sandbox.enabled', undefined, vscode.ConfigurationTarget.Global);
  });

  it("runs a command sandboxed: the extensions' storage is out of sight, a write outside is refused and offered to run outside, asked", async function () {
    if (process.platform !== 'linux') this.skip();
    await withFakeModel(async ({ api, server, approvals }) => {
      const storage = dirname(api.folders.globalStorage);
      await api.sessions.create('sandboxed command');
      server.enqueue(callTool('call_s1', 'run_command', { command: `ls -A '${storage}' | wc -l; echo x > '${outside}/written'` }), { type: 'reply', parts: [{ text: 'done' }] });
      const turn = api.sessions.send('Run it.');
      const card = await nextApproval(approvals, 1);
      if (!card.sandbox?.sandboxed) this.skip(); // no bubblewrap in this VS Code's machine: the card says why (tested in the unit tests)
      assert.match(card.sandbox.text, /^Sandboxed: writes only in the workspace folder and a private temporary folder/);
      assert.match(card.sandbox.detail ?? '', new RegExp(`Writable: ${vscode.workspace.workspaceFolders![0].uri.fsPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},`));
      api.sessions.resolveApproval(card.callId, true);
      const again = await nextApproval(approvals, 2);
      assert.equal(again.outsideSandbox, true);
      assert.equal(again.allowForSession, undefined);
      api.sessions.resolveApproval(again.callId, false);
      await turn;
      const result = (await toolResults(api)).slice(-1)[0];
      assert.match(result, /^0\n/, "every extension's global storage (VS Code's state, Tally's store) is hidden: an empty folder");
      assert.match(result, /Read-only file system[\s\S]*The user chose not to run it outside the sandbox\./);
      assert.equal(existsSync(join(outside, 'written')), false);
    });
  });

  it('with the sandbox turned off in the user settings, the card and the status bar say so and no allowance is offered', async () => {
    await vscode.workspace.getConfiguration('tally').update('sandbox.enabled', false, vscode.ConfigurationTarget.Global);
    const status = await vscode.commands.executeCommand<{ visible: boolean; text: string; tooltip: string }>('tally.sandboxStatusShown');
    assert.deepEqual([status.visible, status.text], [true, '$(warning) Sandbox off']);
    assert.match(status.tooltip, /without a sandbox: the sandbox is turned off \(tally\.sandbox\.enabled is false in your user settings\)/);
    await withFakeModel(async ({ api, server, approvals }) => {
      await api.sessions.create('no sandbox');
      server.enqueue(callTool('call_n1', 'run_command', { command: 'echo unsandboxed' }), { type: 'reply', parts: [{ text: 'done' }] });
      const turn = api.sessions.send('Run it.');
      const card = await nextApproval(approvals, 1);
      assert.equal(card.sandbox?.sandboxed, false);
      assert.match(card.sandbox?.text ?? '', /^No sandbox: the sandbox is turned off/);
      assert.equal(card.allowForSession, undefined);
      api.sessions.resolveApproval(card.callId, true, true);
      await turn;
      assert.match((await toolResults(api)).slice(-1)[0], /^unsandboxed\n/);
    });
  });
});
