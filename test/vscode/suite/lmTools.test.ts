import { strict as assert } from 'assert';
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { callMarker, MARKER_EXTENSION, MARKER_TOOL, markerRuns, nextApproval, offeredTools, toolResults, withFakeModel } from '../harness/markerTool';

describe('tools other extensions register (vscode.lm.tools)', () => {
  it('are offered, ask for approval with name, source and input, and do not run when denied', async () => {
    await withFakeModel(async ({ api, server, approvals }) => {
      assert.ok(vscode.lm.tools.some((t) => t.name === MARKER_TOOL), 'the test extension registered its tool');
      const token = randomBytes(6).toString('hex');
      await api.sessions.create('lm tool denied');
      server.enqueue(callMarker(token), { type: 'reply', parts: [{ text: 'ok' }] });
      const turn = api.sessions.send('write the marker');
      const request = await nextApproval(approvals, 1);
      assert.equal(request.toolName, MARKER_TOOL);
      assert.ok(request.title.includes(MARKER_TOOL) && request.title.includes(MARKER_EXTENSION), request.title);
      assert.ok((request.detail ?? '').includes(token), request.detail);
      assert.equal(request.allowForSession, MARKER_TOOL);
      assert.equal(markerRuns(token), 0, 'nothing ran while the card waits');
      api.sessions.resolveApproval(request.callId, false);
      await turn;
      assert.equal(markerRuns(token), 0, 'the denied tool did not run');
      assert.match((await toolResults(api)).at(-1) ?? '', /denied/);
      assert.ok(offeredTools(server.requests[0].body).includes(MARKER_TOOL), 'offered to the model in a trusted workspace');
    });
  });

  it('"Allow for this session" runs it, then runs it again in the same session without asking', async () => {
    await withFakeModel(async ({ api, server, approvals }) => {
      const token = randomBytes(6).toString('hex');
      await api.sessions.create('lm tool allowed');
      server.enqueue(callMarker(token, 'call_0'), callMarker(token, 'call_0'), { type: 'reply', parts: [{ text: 'done' }] });
      const turn = api.sessions.send('write the marker twice');
      const request = await nextApproval(approvals, 1);
      api.sessions.resolveApproval(request.callId, true, true);
      await turn;
      assert.equal(markerRuns(token), 2, 'ran twice');
      assert.equal(approvals.length, 1, 'asked once');
      assert.deepEqual((await toolResults(api)).slice(-2), ['marker written', 'marker written']);
    });
  });

  it('are not offered until the user turns them on in Configure Tools (kept in global state), and VS Code\'s internal tools never are', async () => {
    await withFakeModel(async ({ api, server }) => {
      await api.sessions.create('tool choice');
      server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] }, { type: 'reply', parts: [{ text: 'ok' }] });
      await api.sessions.send('hello');
      const first = offeredTools(server.requests[0].body);
      assert.ok(first.includes('read_file') && !first.includes(MARKER_TOOL), `by default the built-in tools only: ${first.join(', ')}`);
      assert.ok(!first.some((name) => /internal/i.test(name)), `no internal tool: ${first.join(', ')}`);
      const listed = api.agents.pickableTools().map((t) => t.name);
      assert.ok(listed.includes(MARKER_TOOL) && !listed.some((name) => /internal/i.test(name)), `the picker lists the marker tool, no internal tool: ${listed.join(', ')}`);
      await vscode.commands.executeCommand('tally.configureTools', { picked: ['read_file', MARKER_TOOL] });
      await api.sessions.send('again');
      assert.deepEqual(offeredTools(server.requests[1].body).filter((n) => !['tool_search', 'activate_skill', 'read_result', 'compact_context', 'update_todos'].includes(n)), ['read_file', MARKER_TOOL]);
      const workspaceValue = vscode.workspace.getConfiguration('tally').inspect('toolChoice');
      assert.equal(workspaceValue?.workspaceValue, undefined, 'the choice is no setting a repository could write');
    }, { markerOn: false });
  });
});
