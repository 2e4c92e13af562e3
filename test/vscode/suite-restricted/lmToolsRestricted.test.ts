import { strict as assert } from 'assert';
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { callMarker, MARKER_TOOL, markerRuns, offeredTools, toolResults, withFakeModel } from '../harness/markerTool';

describe('tools other extensions register, in Restricted Mode', () => {
  it('are not offered to the model, and a forced call is refused without running or asking', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    await withFakeModel(async ({ api, server, approvals }) => {
      assert.ok(vscode.lm.tools.some((t) => t.name === MARKER_TOOL), 'the test extension registered its tool');
      const token = randomBytes(6).toString('hex');
      await api.sessions.create('lm tool restricted');
      server.enqueue(callMarker(token), { type: 'reply', parts: [{ text: 'ok' }] });
      await api.sessions.send('write the marker');
      const tools = offeredTools(server.requests[0].body);
      assert.ok(tools.length > 0 && !tools.includes(MARKER_TOOL), `not offered: ${tools.join(', ')}`);
      assert.equal(markerRuns(token), 0, 'the tool did not run');
      assert.equal(approvals.length, 0, 'nothing to approve');
      assert.match((await toolResults(api)).at(-1) ?? '', /Restricted Mode/);
    });
  });
});
