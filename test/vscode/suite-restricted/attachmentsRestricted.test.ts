import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

describe('Attachments in Restricted Mode', () => {
  it('a workspace file is attached (reading is allowed); the working tree\'s changes are not offered and refused when asked for', async () => {
    const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    assert.equal(vscode.workspace.isTrusted, false);
    const { attachments, chat } = api;
    await api.sessions.create('attach restricted');
    const offered = await attachments.draft.complete('changes');
    const diff = offered.find((c) => c.target.kind === 'diff');
    assert.match(diff?.unavailable ?? '', /not in Restricted Mode/);
    await chat.receive({ type: 'attach', target: { kind: 'file', path: 'src/math.ts' } });
    await chat.receive({ type: 'attach', target: { kind: 'diff' } });
    const chips = attachments.draft.views(await attachments.session());
    try {
      assert.equal(chips[0].label, 'src/math.ts');
      assert.ok(chips[0].tokens! > 0 && !chips[0].error);
      assert.match(chips[1].error ?? '', /not attached in Restricted Mode: git would read the repository's own configuration/);
    } finally {
      attachments.draft.clear();
    }
  });
});
