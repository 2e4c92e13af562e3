import { strict as assert } from 'assert';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import type { ChatAttachmentView } from '../../../src/protocol/attachments';
import { attachmentMessage, noteMessage, userMessage } from '../../../src/core/model/factories';
import { toLanguageModelMessages } from '../../../src/vscodeLm/vscodeLmProvider';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { api, forgetScriptedModel, until, useScriptedModel } from './liveSession';

/** The attachment items of a session's last stored request, in order: label and tokens. */
async function lastRequestAttachments(sessionId: string, requests: number): Promise<Array<[string | undefined, number]>> {
  const { sessions } = await api();
  const store = await sessions.store();
  await until('the request is stored', async () => (await store.listRequestUsage(sessionId)).length >= requests);
  const usage = await store.listRequestUsage(sessionId);
  return usage[usage.length - 1].items.filter((i) => i.kind === 'attachment').map((i) => [i.label, i.tokens]);
}

const asItems = (chips: readonly ChatAttachmentView[]) => chips.map((c): [string, number | undefined] => [`Attached: ${c.label}`, c.tokens]);

describe('Attachments in a live session: chips, commands, drops', () => {
  const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const math = () => vscode.Uri.file(join(ws(), 'src', 'math.ts'));
  let server: FakeOpenAIServer;
  let diagnostics: vscode.DiagnosticCollection;
  beforeEach(async () => {
    server = await new FakeOpenAIServer().start();
    diagnostics = vscode.languages.createDiagnosticCollection('attach-test');
    diagnostics.set(math(), [new vscode.Diagnostic(new vscode.Range(1, 9, 1, 14), "Operator '+' cannot be applied here.", vscode.DiagnosticSeverity.Error)]);
  });
  afterEach(async () => {
    diagnostics.dispose();
    await forgetScriptedModel();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await server.close();
  });

  async function selectLines(): Promise<void> {
    const editor = await vscode.window.showTextDocument(math());
    editor.selection = new vscode.Selection(0, 0, 2, 1);
  }

  it("through the composer's messages: a file, a selection and problems become chips whose counts are the request's attachment items", async () => {
    const { sessions, chat, attachments } = await api();
    await useScriptedModel(server.url);
    const session = await sessions.create('attach via composer');
    await selectLines();
    for (const target of [{ kind: 'file', path: 'src/math.ts' }, { kind: 'selection' }, { kind: 'problems', path: 'src/math.ts' }]) {
      assert.deepEqual(await chat.receive({ type: 'attach', target }), { accepted: true, message: { type: 'attach', target } });
    }
    const chips = attachments.draft.views(await attachments.session());
    assert.deepEqual(chips.map((c) => c.label), ['src/math.ts', 'math.ts:1-3', 'Problems in math.ts']);
    assert.ok(chips.every((c) => c.tokens && c.tokens > 0 && !c.error), JSON.stringify(chips));
    server.enqueue({ type: 'reply', parts: [{ text: 'add has a type error on line 2.' }] });
    await chat.receive({ type: 'send', text: 'What is wrong here?' });
    assert.deepEqual(await lastRequestAttachments(session.info.id, 1), asItems(chips));
    const body = server.requests[0].body as { messages: Array<{ role: string; content: string }> };
    assert.ok(body.messages.some((m) => m.role === 'user' && m.content.includes("src/math.ts:2:10 error: Operator '+' cannot be applied here.")), 'the problems are sent as the user put them');
    assert.equal(attachments.draft.count, 0);
  });

  it('through the commands: Add Selection to Chat and Add File to Chat (explorer multi-select) give the same counts the request carries', async () => {
    const { sessions, chat } = await api();
    await useScriptedModel(server.url);
    const session = await sessions.create('attach via commands');
    await selectLines();
    const selection = (await vscode.commands.executeCommand<ChatAttachmentView[]>('tally.addSelectionToChat'))!;
    const pkg = vscode.Uri.file(join(ws(), 'package.json'));
    const files = (await vscode.commands.executeCommand<ChatAttachmentView[]>('tally.addFileToChat', math(), [math(), pkg]))!;
    assert.deepEqual(files.map((c) => c.label), ['src/math.ts', 'package.json']);
    server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
    await chat.receive({ type: 'send', text: 'Summarize these.' });
    assert.deepEqual(await lastRequestAttachments(session.info.id, 1), asItems([...selection, ...files]));
  });

  it('a drop outside the workspace, or through a link that leads out, is refused; a workspace file is taken', async () => {
    const { sessions, chat, attachments } = await api();
    await sessions.create('attach drops');
    const outside = mkdtempSync(join(tmpdir(), 'tally-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'password=hunter2\n');
    const link = join(ws(), 'src', 'linked-secret.txt');
    symlinkSync(join(outside, 'secret.txt'), link);
    try {
      await chat.receive({ type: 'dropUris', uris: [vscode.Uri.file(join(outside, 'secret.txt')).toString(), vscode.Uri.file(link).toString(), 'https://example.com/x.ts'] });
      assert.equal(attachments.draft.count, 0, 'nothing from outside the workspace became a chip');
      await chat.receive({ type: 'attach', target: { kind: 'file', path: 'src/linked-secret.txt' } });
      const [viaLink] = attachments.draft.views(await attachments.session());
      assert.match(viaLink.error ?? '', /outside the workspace folders/);
      await chat.receive({ type: 'removeAttachment', id: viaLink.id });
      await chat.receive({ type: 'dropUris', uris: [math().toString()] });
      assert.deepEqual(attachments.draft.views(await attachments.session()).map((c) => c.label), ['src/math.ts']);
    } finally {
      attachments.draft.clear();
      rmSync(link, { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('completions offer workspace files and folders, the selection, problems and changes, and say why terminal output is not offered when it is not', async () => {
    const { sessions, attachments, chat } = await api();
    await sessions.create('attach completions');
    await selectLines();
    const all = await attachments.draft.complete('');
    const kinds = all.map((c) => c.target.kind);
    for (const kind of ['selection', 'problems', 'diff', 'terminal', 'folder', 'file']) assert.ok(kinds.includes(kind as never), `offers ${kind}: ${kinds.join(', ')}`);
    const terminal = all.find((c) => c.target.kind === 'terminal')!;
    assert.ok(terminal.detail || /shell integration|does not expose/.test(terminal.unavailable ?? ''), JSON.stringify(terminal));
    const math = await attachments.draft.complete('math');
    assert.deepEqual(math.filter((c) => c.target.kind === 'file').map((c) => c.label), ['src/math.ts']);
    assert.ok(all.length <= 50, 'results are capped');
    await chat.receive({ type: 'attach', target: { kind: 'folder', path: 'src' } });
    const [folder] = attachments.draft.views(await attachments.session());
    try {
      assert.equal(folder.label, 'src/');
      assert.ok(folder.tokens! > 0 && !folder.error);
      assert.match(attachments.draft.textOf(folder.id)!.text, /^\[Attached folder listing src\]\n\d+ entries\n[\s\S]*math\.ts/);
    } finally {
      attachments.draft.clear();
    }
  });

  it('the Add Selection keybinding is not one of VS Code\'s own', async () => {
    await vscode.commands.executeCommand('workbench.action.openDefaultKeybindingsFile');
    await until('the default keybindings are open', () => Boolean(vscode.window.activeTextEditor?.document.getText().includes('"key"')));
    const text = vscode.window.activeTextEditor!.document.getText();
    const users = [...text.matchAll(/"key":\s*"ctrl\+alt\+a",\s*"command":\s*"([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(users.filter((c) => !c.startsWith('-')), ['tally.addSelectionToChat']);
  });

  it('on the vscode.lm wire, attachments are user text messages before the question, none empty', () => {
    const messages = toLanguageModelMessages({
      model: 'm',
      system: [{ text: 'You are Tally.' }],
      messages: [
        attachmentMessage({ kind: 'file', label: 'src/math.ts', path: 'src/math.ts' }, '[Attached file src/math.ts]\nexport function add() {}'),
        attachmentMessage({ kind: 'selection', label: 'math.ts:1-1' }, '[Attached selection math.ts:1-1]\nexport function add() {}'),
        noteMessage('Active file: src/math.ts'),
        userMessage('What does add do?'),
      ],
      tools: [],
      maxOutputTokens: 1_000,
    });
    const texts = messages.map((m) => ({ role: m.role, text: m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('') }));
    assert.ok(texts.every((m) => m.role === vscode.LanguageModelChatMessageRole.User && m.text.length > 0), JSON.stringify(texts));
    assert.deepEqual(texts.map((m) => m.text.split('\n')[0]), ['You are Tally.', '[Attached file src/math.ts]', '[Attached selection math.ts:1-1]', 'Active file: src/math.ts', 'What does add do?']);
  });
});
