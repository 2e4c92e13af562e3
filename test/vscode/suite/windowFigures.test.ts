import { strict as assert } from 'assert';
import * as vscode from 'vscode';
import { buildInspectorState } from '../../../src/host/inspector/inspectorState';
import { SCRIPTED_WINDOW_SETTINGS, scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

describe('Every surface shows the same window figures, after a turn and after a compaction', () => {
  const scripted = scriptedModelForSuite(SCRIPTED_WINDOW_SETTINGS);

  /** What each surface shows now: the status bar item, the chat meter and the inspector, as the host built them. */
  async function surfaces(t: Awaited<ReturnType<typeof api>>) {
    const session = await t.sessions.current();
    const store = await t.sessions.store();
    const usage = await store.listRequestUsage(session.info.id);
    // The chat's meter as its state holds it (what the chat was last sent).
    const chat = session.state.header().meter!;
    const inspector = buildInspectorState(session).figures!;
    // The status bar follows change events: give it a moment to show the latest figures.
    const shown = () => vscode.commands.executeCommand<{ text: string; tooltip: string }>('tally.statusBarShown');
    await until('the status bar shows the current figures', async () => ((await shown())?.tooltip ?? '').includes(inspector.text.used), 5_000).catch(() => undefined);
    const statusBar = (await shown())!;
    return { statusBar, chat, inspector, usage };
  }

  function assertAgree(s: Awaited<ReturnType<typeof surfaces>>, when: string): void {
    const f = s.inspector;
    assert.deepEqual(s.chat.text, f.text, `${when}: the chat meter and the inspector say the same`);
    assert.equal(s.chat.used, f.used);
    assert.equal(s.chat.compactAt, f.compactAt);
    assert.ok(s.statusBar.tooltip.includes(f.text.used), `${when}: the status bar says "${f.text.used}": ${s.statusBar.tooltip}`);
    assert.ok(s.statusBar.tooltip.includes(`Compaction threshold: ${f.text.compactAt}`), `${when}: the status bar's threshold has the inspector's denominator: ${s.statusBar.tooltip}`);
    assert.ok(s.statusBar.tooltip.includes(`Block threshold: ${f.text.blockAt}`));
    assert.match(s.statusBar.text, new RegExp(`${(f.usedShare * 100).toFixed(1).replace(/\.0$/, '').replace('.', '\\.')}%$`));
    // The thresholds are shares of the effective window: the settings, exactly.
    assert.equal(f.compactAt, Math.floor(f.effectiveWindow * 0.95));
    assert.match(f.text.compactAt, /= 95% of the effective window/);
  }

  it('agree after a turn with tool calls, and after Compact Context (whose message states the same figure)', async function () {
    this.timeout(120_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('surfaces agree');
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const lines = Array.from({ length: 40 }, (_, i) => `export const value${i} = compute(${i}, 'a longer line so the file counts');`);
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, 'src', 'figures.ts'), Buffer.from(lines.join('\n')));
    scripted().enqueue({ type: 'reply', parts: [{ text: 'Ready.' }], usage: null });
    await t.sessions.send('Say ready.');
    const first = await surfaces(t);
    assertAgree(first, 'after the first turn');
    // The provider now reports counts close to Tally's estimate (a fifth more, each read of the file
    // adding about its size in tokens), so the reported basis is used.
    const perRead = Math.round(lines.join('\n').length / 4);
    const reported = (reads: number) => Math.round((first.inspector.used + reads * perRead) * 1.2);
    for (let i = 0; i < 3; i++) scripted().enqueue({ type: 'reply', parts: [{ toolCall: { name: 'read_file', arguments: JSON.stringify({ path: 'src/figures.ts' }) } }], usage: { input: reported(i), output: 20 } });
    scripted().enqueue({ type: 'reply', parts: [{ text: 'Read it three times.' }], usage: { input: reported(3), output: 30 } });
    await t.sessions.send('Read src/figures.ts three times.');
    await until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    const afterTurn = await surfaces(t);
    assertAgree(afterTurn, 'after a turn');
    assert.equal(afterTurn.inspector.basis, 'reported', 'the provider reported its counts');
    const last = afterTurn.usage[afterTurn.usage.length - 1];
    assert.equal(afterTurn.inspector.lastRequest?.tokens, last.reportedInputTokens, 'the last request is the provider count of the last request');
    assert.equal(afterTurn.chat.text.lastAndNow, `last request ${last.reportedInputTokens!.toLocaleString('en-US')} · context now ${afterTurn.inspector.used.toLocaleString('en-US')}`);

    const message = (await vscode.commands.executeCommand<string>('tally.compactContext', ''))!;
    const afterCompaction = await surfaces(t);
    assertAgree(afterCompaction, 'after a compaction');
    assert.ok(afterCompaction.inspector.used < afterTurn.inspector.used, 'the compaction removed something');
    assert.ok(message.startsWith(`Compacted context: ${afterTurn.inspector.used.toLocaleString('en-US')} → ${afterCompaction.inspector.used.toLocaleString('en-US')} tokens`), message);
    assert.ok(message.includes(`The context holds ${afterCompaction.inspector.text.used}.`), message);
    assert.equal(session.info.id, (await t.sessions.current()).info.id);
    await vscode.workspace.fs.delete(vscode.Uri.joinPath(folder, 'src', 'figures.ts'));
  });
});
