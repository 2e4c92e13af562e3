import { strict as assert } from 'assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import { withFakeModel } from '../harness/markerTool';

describe('Hooks in Restricted Mode', function () {
  this.timeout(120_000);
  it("never runs the workspace's .tally/hooks.json; the user's own hooks run", async () => {
    const marks = mkdtempSync(join(tmpdir(), 'tally-vscode-hooks-restricted-'));
    const workspaceHooks = join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.tally', 'hooks.json');
    const config = vscode.workspace.getConfiguration('tally');
    try {
      mkdirSync(join(workspaceHooks, '..'), { recursive: true });
      writeFileSync(workspaceHooks, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `cat > '${join(marks, 'workspace')}'` }] }] } }));
      await config.update('hooks', { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `cat > '${join(marks, 'user')}'` }] }] }, vscode.ConfigurationTarget.Global);
      await withFakeModel(async ({ api, server }) => {
        await api.sessions.create('restricted hooks');
        server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
        await api.sessions.send('Hello.');
      });
      assert.equal(existsSync(join(marks, 'user')), true, "the user's hook ran");
      assert.equal(existsSync(join(marks, 'workspace')), false, "the workspace's hook did not");
    } finally {
      await config.update('hooks', undefined, vscode.ConfigurationTarget.Global);
      rmSync(workspaceHooks, { force: true });
      rmSync(marks, { recursive: true, force: true });
    }
  });
});
