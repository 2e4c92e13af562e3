import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { conversationItemsOf } from '../../../src/core/context/messageItems';
import { requestItemFullText } from '../../../src/core/context/itemText';
import { forkEntryText } from '../../../src/protocol/forkEntry';
import { scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

/**
 * Fork from request #N in a real VS Code: the fork's first request carries request #N's items
 * (same ids, text, tokens), its stored result opens and read_result reads it, also once the
 * original session is deleted, and a request that does not exist is refused.
 */
describe('Fork from a request in a live session', () => {
  const scripted = scriptedModelForSuite({ provider: 'openai-compatible', model: 'scripted-model', contextWindow: 64_000 });

  it('fork from request #1: the fork opens, its first request carries request #1\'s items, its stored result opens and read_result reads it, after the original is deleted too', async function () {
    this.timeout(180_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const file = vscode.Uri.joinPath(folder, 'src', 'forkBig.txt');
    await vscode.workspace.fs.writeFile(file, Buffer.from(Array.from({ length: 1_500 }, (_, i) => `line ${String(i).padStart(4, '0')} of the fork test file`).join('\n')));
    const store = await t.sessions.store();
    const turnEnded = () => until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    try {
      const source = await t.sessions.create('fork source');
      const id = source.info.id;
      scripted().enqueue({ type: 'reply', parts: [{ toolCall: { name: 'read_file', arguments: JSON.stringify({ path: 'src/forkBig.txt' }) } }] }, { type: 'reply', parts: [{ text: 'It lists numbered lines.' }] });
      await t.sessions.send('Read src/forkBig.txt.');
      await turnEnded();
      scripted().enqueue({ type: 'reply', parts: [{ text: 'You are welcome.' }] });
      await t.sessions.send('Thanks.');
      await turnEnded();
      await until('three requests are stored', async () => (await store.nextRequestIndex(id)) >= 3);
      const request1 = (await store.requestUsageAt(id, 1))!;
      const sent = conversationItemsOf(request1);
      assert.ok(sent.some((i) => i.badges.includes('offloaded')), 'request #1 carried the offloaded read');

      const forkId = await vscode.commands.executeCommand<string>('tally.forkFromRequest', id, 1);
      const fork = await t.sessions.current();
      assert.equal(fork.info.id, forkId, 'the fork is the session open in the chat');
      assert.equal(fork.info.title, 'Fork of fork source at #1');
      assert.ok((await store.listSessions()).some((s) => s.id === forkId), 'it is in the session list');
      const [entry] = fork.state.records.compactions;
      assert.deepEqual(entry.step, { kind: 'fork', fromSessionId: id, fromRequestIndex: 1 });
      assert.ok(forkEntryText(entry).startsWith(`Forked from request #1 with ${sent.length} messages, ${request1.estimatedInputTokens.toLocaleString('en-US')} tokens`), forkEntryText(entry));

      // The inspector's Open on the fork's stored result.
      const ref = fork.contextSession.messages.find((m) => m.meta?.offloadRef)!.meta!.offloadRef!;
      const opened = await vscode.commands.executeCommand<vscode.TextDocument>('tally.openResult', ref);
      assert.match(opened?.getText() ?? '', /line 1499 of the fork test file/);

      // The fork's first request: request #1's items, then the new message; its read_result reads the shared result.
      scripted().enqueue({ type: 'reply', parts: [{ toolCall: { name: 'read_result', arguments: JSON.stringify({ ref_id: ref, offset: 0, limit: 200 }) } }] }, { type: 'reply', parts: [{ text: 'Read it again.' }] });
      await t.sessions.send('Go on from here.');
      await turnEnded();
      const first = (await store.requestUsageAt(forkId, 0))!;
      const carried = conversationItemsOf(first);
      assert.deepEqual(carried.slice(0, sent.length), sent, 'same ids, kinds, tokens, badges and previews');
      assert.equal(carried[sent.length].preview, 'Go on from here.');
      const live = await t.sessions.current();
      for (const item of sent) {
        const there = await requestItemFullText({ store, sessionId: id, requestIndex: 1, itemId: item.messageId, working: [] });
        const here = await requestItemFullText({ store, sessionId: forkId, requestIndex: 0, itemId: item.messageId, working: live.contextSession.messages });
        assert.equal(here.text, there.text, `the text of ${item.kind} ${item.messageId}`);
      }
      const readBack = live.contextSession.messages.filter((m) => m.toolName === 'read_result').at(-1);
      assert.match(readBack?.content ?? '', /line 0000 of the fork test file/, `read_result in the fork: ${readBack?.content.slice(0, 200)}`);

      // The original deleted and the fork opened again from its files: its result still opens.
      await store.deleteSession(id);
      await t.sessions.create('elsewhere');
      await t.sessions.open(forkId);
      const again = await vscode.commands.executeCommand<vscode.TextDocument>('tally.openResult', ref);
      assert.match(again?.getText() ?? '', /line 0000 of the fork test file/);

      // A request that does not exist: refused (the command shows the error), no session made.
      const before = (await store.listSessions()).length;
      assert.equal(await vscode.commands.executeCommand('tally.forkFromRequest', forkId, 99), undefined);
      assert.equal(await vscode.commands.executeCommand('tally.forkFromRequest', forkId, '1'), undefined);
      assert.equal((await store.listSessions()).length, before);
      assert.equal((await t.sessions.current()).info.id, forkId, 'the fork stays open');
    } finally {
      await vscode.workspace.fs.delete(file);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
