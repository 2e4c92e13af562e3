import { strict as assert } from 'assert';
import { readFileSync, rmSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';
import { runAndDeny } from '../suite/hostHelpers';

describe('writes in Restricted Mode', function () {
  this.timeout(60_000);
  it('a write asks even when the user setting says always', async () => {
    const { agents } = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    const config = vscode.workspace.getConfiguration('tally');
    const target = join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'restricted.txt');
    await config.update('approval.edits', 'always', vscode.ConfigurationTarget.Global);
    try {
      const result = await runAndDeny(agents, 'r1', 'write_file', { path: 'restricted.txt', content: 'x' });
      assert.equal(result.asked, true, 'it waits for the user');
      assert.match(result.output, /denied/);
      assert.throws(() => readFileSync(target), 'nothing was written');
    } finally {
      await config.update('approval.edits', undefined, vscode.ConfigurationTarget.Global);
      rmSync(target, { force: true });
    }
  });
});
