import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { toolPickerRows, NO_TOOL_CHOICE } from '../../../src/core/tools/toolChoice';
import { startHttpServer } from '../../fakes/mcp/testServer';
import { nextApproval, offeredTools, toolResults, withFakeModel } from '../harness/markerTool';

type FakeModelContext = Parameters<Parameters<typeof withFakeModel>[0]>[0];

/**
 * Runs `test` with the fake model and Tally's `notes` MCP server configured, started and listed:
 * `listed` says when the server's list the test needs (its prompts, its resources) has arrived.
 * The server's setting is removed and the server closed afterwards.
 */
async function withNotesServer(listed: (api: FakeModelContext['api']) => boolean, test: (context: FakeModelContext) => Promise<void>): Promise<void> {
  const mcp = await startHttpServer();
  const config = () => vscode.workspace.getConfiguration('tally');
  try {
    await withFakeModel(
      async (context) => {
        const { api } = context;
        await config().update('mcp.servers', { notes: { type: 'http', url: mcp.url } }, vscode.ConfigurationTarget.Global);
        const arrived = new Promise<void>((resolve) => {
          const watch = api.mcp.servers.onDidChange(() => {
            if (!listed(api)) return;
            watch.dispose();
            resolve();
          });
        });
        await api.mcp.startAll();
        if (!listed(api)) await arrived;
        await test(context);
      },
      { markerOn: false },
    );
  } finally {
    await config().update('mcp.servers', undefined, vscode.ConfigurationTarget.Global);
    await mcp.close();
  }
}

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

  it("offers a running server's prompts in the chat's / list without waiting for a server, and sending one sends the prompt with its argument", async () => {
    await withNotesServer(
      (api) => api.mcp.servers.listedPrompts().some((p) => p.server === 'notes'),
      async ({ api, server }) => {
        const items = await api.commands.list((text) => text.length);
        const review = items.find((c) => c.name === 'mcp.notes.review');
        assert.deepEqual(review && { kind: review.kind, source: review.source, description: review.description, argumentHint: review.argumentHint }, { kind: 'mcp', source: 'MCP server notes', description: 'Review a file.', argumentHint: 'file' }, JSON.stringify(items));
        await api.sessions.create('mcp prompt');
        server.enqueue({ type: 'reply', parts: [{ text: 'Looks fine.' }] });
        await api.chat.receive({ type: 'send', text: '/mcp.notes.review src/app.ts' });
        const body = server.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> };
        assert.ok(body.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('Please review src/app.ts for bugs.')), JSON.stringify(body.messages));
      },
    );
  });

  it("offers a running server's resources in the # list; attached, the chip shows its tokens before sending and the request carries its text", async () => {
    await withNotesServer(
      (api) => api.mcp.servers.listedResources().some((r) => r.server === 'notes'),
      async ({ api, server }) => {
        const offered = (await api.attachments.draft.complete('readme')).filter((c) => c.target.kind === 'resource');
        assert.deepEqual(offered.map((c) => [c.target, c.detail]), [[{ kind: 'resource', server: 'notes', uri: 'test://readme' }, 'MCP server notes · test://readme']]);
        await api.sessions.create('mcp resource');
        assert.deepEqual(await api.chat.receive({ type: 'attach', target: offered[0]!.target }), { accepted: true, message: { type: 'attach', target: offered[0]!.target } });
        const [chip] = api.attachments.draft.views(await api.attachments.session());
        assert.ok(chip && chip.kind === 'resource' && chip.tokens! > 0 && !chip.error, JSON.stringify(chip));
        assert.deepEqual(await api.chat.receive({ type: 'attach', target: { kind: 'resource', server: 'notes', uri: 'file:///etc/passwd' } }), { accepted: true, message: { type: 'attach', target: { kind: 'resource', server: 'notes', uri: 'file:///etc/passwd' } } });
        const refused = api.attachments.draft.views(await api.attachments.session()).find((c) => c.label.includes('passwd'));
        assert.match(refused?.error ?? '', /does not list the resource file:\/\/\/etc\/passwd/, 'a resource the server did not list is never read');
        api.attachments.draft.remove(refused!.id);
        server.enqueue({ type: 'reply', parts: [{ text: 'Read it.' }] });
        await api.chat.receive({ type: 'send', text: 'What does the readme say?' });
        assert.match(JSON.stringify(server.requests[0]!.body), /npm test/);
      },
    );
  });
});
