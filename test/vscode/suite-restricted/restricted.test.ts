import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

describe('Tally in Restricted Mode', () => {
  it('runs limited: no AGENTS.md, no workspace skills and no command execution in an untrusted workspace', async () => {
    const api = await vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
    assert.equal(vscode.workspace.isTrusted, false);
    const report = await api.agents.loadInstructions();
    assert.equal(report.text.includes('npm test'), false);
    assert.ok(report.files.some((f) => f.status === 'skipped' && f.reason === 'the workspace is not trusted'));
    const result = await api.agents.runWorkspaceTool({ id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: 'echo should-not-run' }) });
    assert.match(String(result.output), /disabled in an untrusted workspace/);
    const skills = await api.agents.loadSkills();
    assert.deepEqual(skills.skills.filter((s) => s.origin === 'workspace'), [], 'no skill from the untrusted workspace');
    const shown = await vscode.commands.executeCommand<string>('tally.showLoadedInstructions');
    assert.match(shown, /Workspace skills \(`\.tally\/skills`\) are not loaded: the workspace is not trusted\./);
    assert.ok(!shown.includes('release-notes'), 'the workspace skill is not listed');
  });
});
