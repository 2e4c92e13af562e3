import { strict as assert } from 'assert';
import { mkdirSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { MARKER_TOOL, markerRuns, offeredTools, toolResults, withFakeModel } from '../harness/markerTool';
import { until } from './hostHelpers';

const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const HELPER = ['---', 'name: helper', 'description: Helps with anything.', `tools: [read_file, run_command, ${MARKER_TOOL}]`, '---', 'Use every tool you have.', ''].join('\n');

describe('Subagents in VS Code get only the tools Configure Tools offers', function () {
  this.timeout(120_000);
  afterEach(() => rmSync(join(folder(), '.tally'), { recursive: true, force: true }));

  it('with run_command unticked and an extension tool never ticked, an agent file listing both gets neither, and nothing runs or asks', async () => {
    mkdirSync(join(folder(), '.tally', 'agents'), { recursive: true });
    writeFileSync(join(folder(), '.tally', 'agents', 'helper.md'), HELPER);
    const token = `subagent-choice-${Date.now()}`;
    await withFakeModel(
      async ({ api, server, approvals }) => {
        const builtins = api.agents.pickableTools().filter((t) => t.source === 'builtin' && t.name !== 'run_command').map((t) => t.name);
        await vscode.commands.executeCommand('tally.configureTools', { picked: builtins });
        await api.sessions.create('subagent tools');
        // A card would mean the subagent had a tool it should not: deny it so the turn ends and the assertions say so.
        const denying = api.sessions.onAgentEvent((event) => {
          if (event.type === 'approval_needed') api.sessions.resolveApproval(event.request.callId, false);
        });
        server.enqueue(
          { type: 'reply', parts: [{ toolCall: { id: 'call_delegate', name: 'delegate', arguments: JSON.stringify({ task: 'TASK help', agent: 'helper' }) } }] },
          {
            type: 'reply',
            parts: [
              { toolCall: { id: 'call_cmd', name: 'run_command', arguments: JSON.stringify({ command: 'echo hi' }) } },
              { toolCall: { id: 'call_marker', name: MARKER_TOOL, arguments: JSON.stringify({ token }) } },
            ],
          },
          { type: 'reply', parts: [{ text: 'Report: nothing ran.' }] },
          { type: 'reply', parts: [{ text: 'Done.' }] },
        );
        try {
          await api.sessions.send('Let the helper do it.');
          await until('the turn ended', async () => !(await api.sessions.current()).agent?.busy);
        } finally {
          denying.dispose();
        }
        const sub = server.requests.find((r) => JSON.stringify(r.body.messages).includes('TASK help') && !JSON.stringify(r.body.messages).includes('Let the helper'))!;
        assert.deepEqual(offeredTools(sub.body), ['read_file']);
        assert.equal(markerRuns(token), 0, "the extension's tool never ran");
        assert.deepEqual(approvals, [], 'nothing asked');
        assert.match((await toolResults(api)).join('\n'), /Report: nothing ran\./);
      },
      { markerOn: false },
    );
  });
});
