import { strict as assert } from 'assert';
import { rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import * as vscode from 'vscode';
import { requestItemText } from '../../../src/core/context/itemText';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { api, forgetScriptedModel, until, useScriptedModel } from './liveSession';

describe('Request items in a live session: every token is an item, and the prefix stays put', () => {
  const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await new FakeOpenAIServer().start();
    writeFileSync(join(ws(), 'src', 'AGENTS.md'), '# Rules for src\nKeep functions pure.\n');
  });
  afterEach(async () => {
    await forgetScriptedModel();
    rmSync(join(ws(), 'src', 'AGENTS.md'), { force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  it('a turn against the fake server: every stored request adds up, lists the base instructions, each AGENTS.md with its path and the tool schemas; a tab switch changes only the dynamic part', async () => {
    const { sessions } = await api();
    await useScriptedModel(server.url);
    const session = await sessions.create('request items');
    await vscode.window.showTextDocument(vscode.Uri.file(join(ws(), 'src', 'math.ts')));

    server.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'c1', name: 'list_files', arguments: '{"path":"."}' } }] }, { type: 'reply', parts: [{ text: 'It adds two numbers.' }] });
    await sessions.send('What does add do?');
    await until('the first turn is stored', async () => (await (await sessions.store()).listRequestUsage(session.info.id)).length >= 2);

    await vscode.window.showTextDocument(vscode.Uri.file(join(ws(), 'package.json')));
    server.enqueue({ type: 'reply', parts: [{ text: 'It runs node.' }] });
    await sessions.send('And the test script?');
    const store = await sessions.store();
    await until('the second turn is stored', async () => (await store.listRequestUsage(session.info.id)).length >= 3);

    const usage = await store.listRequestUsage(session.info.id);
    for (const record of usage) assert.equal(record.items.reduce((n, i) => n + i.tokens, 0), record.estimatedInputTokens, `request #${record.requestIndex} adds up`);
    const first = usage[0].items;
    assert.equal(first[0].label, 'Base instructions');
    assert.ok(first.some((i) => i.kind === 'agents-md' && i.path === join(ws(), 'AGENTS.md') && i.section === 'system'), 'the root AGENTS.md with its path, in the stable prefix');
    assert.ok(first.some((i) => i.kind === 'agents-md' && i.path === join(ws(), 'src', 'AGENTS.md') && i.section === 'dynamic'), 'the nested AGENTS.md of the active file, in the dynamic part');
    assert.ok(!usage[2].items.some((i) => i.path === join(ws(), 'src', 'AGENTS.md')), 'gone once the active file is elsewhere');
    const tools = first.filter((i) => i.kind === 'tool-schema');
    assert.ok(tools.some((i) => i.toolName === 'read_file' && i.source === 'built-in' && i.tokens > 0));
    assert.ok(tools.some((i) => i.toolName === 'read_result' && i.source === "Tally's session tools"));
    assert.ok(first.some((i) => i.messageId === 'framing:tools') && first.some((i) => i.messageId === 'framing:messages'));

    // A tool opened from the inspector is the text this OpenAI-compatible server was sent: its own form, no Anthropic input_schema.
    const readFile = tools.find((i) => i.toolName === 'read_file')!;
    const toolText = (await requestItemText({ store, sessionId: session.info.id, requestIndex: 0, itemId: readFile.messageId, working: [] })).text;
    assert.ok(server.requests[0].rawBody.includes(toolText), `the request body holds the text the inspector opens: ${toolText.slice(0, 80)}`);
    assert.doesNotMatch(toolText, /input_schema/);

    const nested = first.find((i) => i.path === join(ws(), 'src', 'AGENTS.md'))!;
    const text = await requestItemText({ store, sessionId: session.info.id, requestIndex: 0, itemId: nested.messageId, working: [] });
    assert.match(text.text, /Keep functions pure\./);

    // On the wire: the same system prompt and tools for both turns; the user's words, then the dynamic part.
    const [a, c] = [server.requests[0].body, server.requests[2].body] as Array<{ messages: Array<{ role: string; content: string }>; tools: unknown[] }>;
    assert.deepEqual(c.messages[0], a.messages[0], 'the system message did not change with the tab');
    assert.deepEqual(c.tools, a.tools);
    assert.match(a.messages.at(-1)!.content, /Rules for src/);
    assert.deepEqual(a.messages.at(-2), { role: 'user', content: 'What does add do?' });
    const cUser = c.messages.map((m) => m.content).lastIndexOf('And the test script?');
    assert.ok(cUser >= 0 && c.messages.slice(cUser + 1).every((m) => m.role === 'user' && m.content !== 'And the test script?'), 'after the latest question comes only the dynamic part, if any');
    assert.deepEqual(JSON.stringify(c.messages.slice(0, a.messages.length - 1)), JSON.stringify(a.messages.slice(0, -1)), 'the second turn sends the first turn again unchanged, up to the dynamic part');
  });
});
