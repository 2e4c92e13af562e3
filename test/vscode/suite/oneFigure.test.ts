import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { buildInspectorState } from '../../../src/host/inspector/inspectorState';
import type { CompactionView } from '../../../src/protocol/inspector';
import type { TallyApi } from '../../../src/extension';
import { SCRIPTED_WINDOW_SETTINGS, scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

const n = (tokens: number) => tokens.toLocaleString('en-US');

/**
 * The context now is one number: the status bar, the chat meter, the chat's compaction notices, the
 * inspector's header, next-request list and history, and the Compact Context message say the same
 * figure after a turn, /compact, the palette's Compact Context, New Session and Resume, and a reopen.
 */
describe('One number for the context on every surface, through compactions and reopens', () => {
  const scripted = scriptedModelForSuite(SCRIPTED_WINDOW_SETTINGS);

  /** Every surface's figure now, read from what the host builds for it (the status bar from the item itself). */
  async function surfaces(t: TallyApi) {
    const session = await t.sessions.current();
    // The chat as its state holds it (what the chat was sent).
    const chatState = session.state.chatState();
    const inspectorState = buildInspectorState(session);
    const f = inspectorState.figures!;
    const shown = () => vscode.commands.executeCommand<{ text: string; tooltip: string }>('tally.statusBarShown');
    await until(`the status bar shows ${f.text.used}`, async () => ((await shown())?.tooltip ?? '').includes(f.text.used), 10_000);
    const statusBar = (await shown())!;
    const notices = chatState.entries.flatMap((e) => (e.kind === 'compaction' ? [e.record] : []));
    const nextRequestItems = inspectorState.current.reduce((sum, item) => sum + item.tokens, 0);
    return { f, chat: chatState.meter!, statusBar, notices, history: inspectorState.compactions, nextRequestItems };
  }

  /** One number: each surface shows the inspector header's figure, and the estimate where it is the estimate. */
  function assertOneNumber(s: Awaited<ReturnType<typeof surfaces>>, when: string): number {
    const { f } = s;
    assert.equal(s.chat.used, f.used, `${when}: chat meter = inspector header`);
    assert.deepEqual(s.chat.text, f.text, `${when}: chat meter texts = inspector header texts`);
    assert.ok(s.statusBar.tooltip.includes(`**Tally context**: ${f.text.used}`), `${when}: status bar: ${s.statusBar.tooltip}`);
    assert.equal(s.nextRequestItems, f.estimated, `${when}: the next-request list's items add up to the estimate the header shows beside the figure`);
    if (f.basis === 'reported' && f.estimated !== f.used) {
      assert.equal(f.text.estimate, `Tally's estimate ${n(f.estimated)}`, `${when}: the estimate is shown beside the figure`);
      assert.ok(s.statusBar.tooltip.includes(f.text.estimate!), `${when}: the status bar shows the estimate beside it too`);
    }
    return f.used;
  }

  function assertRecorded(s: Awaited<ReturnType<typeof surfaces>>, before: number, when: string): CompactionView {
    const newest = s.history[0];
    assert.ok(newest && newest.status === 'complete', `${when}: a compaction was recorded`);
    assert.equal(newest.tokensBefore, before, `${when}: the history's "before" is the figure the surfaces showed before`);
    assert.equal(newest.tokensAfter, s.f.used, `${when}: the history's "after" is the figure the surfaces show now`);
    const notice = s.notices.find((r) => r.id === newest.id);
    assert.deepEqual(notice && [notice.tokensBefore, notice.tokensAfter], [newest.tokensBefore, newest.tokensAfter], `${when}: the chat notice says what the history says`);
    return newest;
  }

  async function turnReadingTheFile(t: TallyApi, factor: number, last: number): Promise<void> {
    const reported = Math.round(last * factor);
    for (let i = 0; i < 3; i++) scripted().enqueue({ type: 'reply', parts: [{ toolCall: { name: 'read_file', arguments: JSON.stringify({ path: 'src/oneFigure.ts' }) } }], usage: { input: reported + i * 400, output: 20 } });
    scripted().enqueue({ type: 'reply', parts: [{ text: 'Read it three times.' }], usage: { input: reported + 1_600, output: 30 } });
    await t.sessions.send('Read src/oneFigure.ts three times.');
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
  }

  it('holds after a turn, /compact, Compact Context, New Session and Resume, and a reopen', async function () {
    this.timeout(240_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('one number');
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const file = vscode.Uri.joinPath(folder, 'src', 'oneFigure.ts');
    const lines = Array.from({ length: 60 }, (_, i) => `export const figure${i} = measure(${i}, 'a line long enough that the file counts for something');`);
    await vscode.workspace.fs.writeFile(file, Buffer.from(lines.join('\n')));
    try {
      scripted().enqueue({ type: 'reply', parts: [{ text: 'Ready.' }], usage: null });
      await t.sessions.send('Say ready.');
      const start = assertOneNumber(await surfaces(t), 'after the first turn');

      // The provider counts 10% more than Tally's tokenizer: the reported basis differs from the estimate.
      await turnReadingTheFile(t, 1.1, start);
      const afterTurn = await surfaces(t);
      const beforeSlash = assertOneNumber(afterTurn, 'after a turn with reported usage');
      assert.equal(afterTurn.f.basis, 'reported');
      assert.notEqual(afterTurn.f.estimated, afterTurn.f.used, 'the report and the estimate differ, so both are shown');

      await t.sessions.send('/compact');
      const afterSlash = await surfaces(t);
      const slashFigure = assertOneNumber(afterSlash, 'after /compact');
      const slashRecord = assertRecorded(afterSlash, beforeSlash, 'after /compact');
      assert.equal(slashRecord.estimatedTokensBefore, afterTurn.f.estimated, "the record keeps Tally's estimate beside the figure");

      await turnReadingTheFile(t, 1.1, slashFigure);
      const beforePalette = assertOneNumber(await surfaces(t), 'after another turn');
      const message = (await vscode.commands.executeCommand<string>('tally.compactContext', ''))!;
      const afterPalette = await surfaces(t);
      const paletteFigure = assertOneNumber(afterPalette, 'after Compact Context');
      assertRecorded(afterPalette, beforePalette, 'after Compact Context');
      assert.ok(message.startsWith(`Compacted context: ${n(beforePalette)} → ${n(paletteFigure)} tokens (`), `the toast says the same figures: ${message}`);
      assert.ok(message.includes(`The context holds ${afterPalette.f.text.used}.`), message);

      await t.sessions.create('another session');
      await t.sessions.open(session.info.id);
      const resumed = await surfaces(t);
      assert.equal(assertOneNumber(resumed, 'after New Session and Resume'), paletteFigure, 'Resume shows the figure shown before New Session');
      assert.equal(resumed.f.basis, 'reported');
      assertRecorded(resumed, beforePalette, 'after Resume');

      // The closest the harness has to a window reload: the session opened again from its files.
      await t.sessions.open(session.info.id);
      const reopened = await surfaces(t);
      assert.equal(assertOneNumber(reopened, 'after a reopen'), paletteFigure, 'a reopen shows the figure shown before it');
    } finally {
      await vscode.workspace.fs.delete(file);
    }
  });
});
