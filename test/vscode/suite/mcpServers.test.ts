import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { toolPickerRows, NO_TOOL_CHOICE } from '../../../src/core/tools/toolChoice';
import { startHttpServer } from '../../fakes/mcp/testServer';
import { nextApproval, offeredTools, toolResults, withFakeModel } from '../harness/markerTool';

describe('MCP servers Tally runs (tally.mcp.servers)', () => {
  it("lists a configured server's tools under it, offers one once turned on, and its card names the server", async () => {
    const mcp = await startHttpServer();
    const config = () => vscode.workspace.getConfiguration('tally');
    try {
      await withFakeModel(
        async ({ api, server, approvals }) => {
          await config().update('mcp.servers', { notes: { type: 'http', url: mcp.url } }, vscode.ConfigurationTarget.Global);
          const status = await api.mcp.startAll();
          assert.deepEqual(status.map((s) => [s.name, s.state]), [['notes', 'running']], JSON.stringify(status));
          const rows = toolPickerRows(api.agents.pickableTools(), NO_TOOL_CHOICE, () => 1).filter((r) => r.group === 'MCP server "notes"');
          assert.ok(rows.some((r) => r.name === 'mcp_notes_echo'), `listed under its server: ${rows.map((r) => r.name).join(', ')}`);
          await vscode.commands.executeCommand('tally.configureTools', { picked: ['read_file', 'mcp_notes_echo'] });
          await api.sessions.create('mcp tool');
          server.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'call_0', name: 'mcp_notes_echo', arguments: JSON.stringify({ text: 'from the server' }) } }] }, { type: 'reply', parts: [{ text: 'done' }] });
          const turn = api.sessions.send('echo something');
          const request = await nextApproval(approvals, 1);
          assert.equal(request.title, 'MCP server "notes", tool echo');
          api.sessions.resolveApproval(request.callId, true);
          await turn;
          assert.ok(offeredTools(server.requests[0].body).includes('mcp_notes_echo'));
          assert.equal((await toolResults(api)).at(-1), 'from the server');
        },
        { markerOn: false },
      );
    } finally {
      await config().update('mcp.servers', undefined, vscode.ConfigurationTarget.Global);
      await mcp.close();
    }
  });
});
