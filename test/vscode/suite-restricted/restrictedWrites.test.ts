import { strict as assert } from 'assert';
import { readFileSync, rmSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

describe('writes in Restricted Mode', function () {
  this.timeout(60_000);
  it('a write asks even when the user setting says always', async () => {
    const { agents } = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    const config = vscode.workspace.getConfiguration('tally');
    const target = join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'restricted.txt');
    await config.update('approval.edits', 'always', vscode.ConfigurationTarget.Global);
    try {
      let settled = false;
      const pending = agents.runWorkspaceTool({ id: 'r1', name: 'write_file', arguments: JSON.stringify({ path: 'restricted.txt', content: 'x' }) }).then((r) => ((settled = true), r));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(settled, false, 'it waits for the user');
      agents.resolveApproval('r1', false);
      assert.match(String((await pending).output), /denied/);
      assert.throws(() => readFileSync(target), 'nothing was written');
    } finally {
      await config.update('approval.edits', undefined, vscode.ConfigurationTarget.Global);
      rmSync(target, { force: true });
    }
  });
});
