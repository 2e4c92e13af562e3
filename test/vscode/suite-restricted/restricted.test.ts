import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

describe('Tally in Restricted Mode', () => {
  it('runs limited: no AGENTS.md and no command execution in an untrusted workspace', async () => {
    const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    assert.equal(vscode.workspace.isTrusted, false);
    const report = await api.agents.loadInstructions();
    assert.equal(report.text.includes('npm test'), false);
    assert.ok(report.files.some((f) => f.status === 'skipped' && f.reason === 'the workspace is not trusted'));
    const result = await api.agents.runWorkspaceTool({ id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: 'echo should-not-run' }) });
    assert.match(String(result.output), /disabled in an untrusted workspace/);
  });
});
