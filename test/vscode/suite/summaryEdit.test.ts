import { strict as assert } from 'assert';
import { requestItemText } from '../../../src/core/context/itemText';
import { inspectorHandlers } from '../../../src/host/inspector/inspectorIntents';
import type { HostToInspector } from '../../../src/protocol/inspector';
import { receiveWebviewMessage } from '../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../src/protocol/validate';
import { SCRIPTED_WINDOW_SETTINGS, scriptedModelForSuite, tallyApi as api, until } from './hostHelpers';

/**
 * The compaction preview's summary, edited before Confirm, in a real VS Code: the messages go
 * through the inspector's validated boundary and handlers (what its panel runs) to the live session.
 */
describe('Editing the compaction preview\'s summary in a live session', () => {
  const scripted = scriptedModelForSuite({ ...SCRIPTED_WINDOW_SETTINGS, 'compaction.keepRecentShare': 0.05 });

  it('the edited summary: the stored history entry and the next request carry what was typed, the entry keeps the proposed one', async function () {
    this.timeout(180_000);
    const t = await api();
    await until('the model is ready', async () => Boolean((await t.sessions.current()).agent));
    const session = await t.sessions.create('summary edit');
    const store = await t.sessions.store();
    const turnEnded = () => until('the turn ended', async () => !(await t.sessions.current()).agent?.busy);
    for (let i = 0; i < 5; i++) {
      scripted().enqueue({ type: 'reply', parts: [{ text: `Step ${i}: ${'The logger writes each line in order and flushes at exit. '.repeat(250)}` }] });
      await t.sessions.send(`Explain step ${i} of the logger.`);
      await turnEnded();
    }

    const posted: HostToInspector[] = [];
    const problems: string[] = [];
    const handlers = inspectorHandlers({
      sessions: t.sessions,
      post: (message) => void posted.push(message),
      sendState: async () => undefined,
      showEarlier: async () => undefined,
      executeCommand: async () => undefined,
      showInformation: () => undefined,
    });
    const fromWebview = (message: unknown) => receiveWebviewMessage(message, { source: 'inspector', parse: parseInspectorMessage, log: { warn: (line: string) => void problems.push(line) }, handlers, onError: (error: unknown) => void problems.push(String(error)) });

    scripted().enqueue({ type: 'reply', parts: [{ text: 'Goal: explain the logger step by step.\nDone: steps 0 to 4 were explained.' }] });
    await fromWebview({ type: 'previewCompaction' });
    const preview = posted.find((m): m is Extract<HostToInspector, { type: 'preview' }> => m.type === 'preview')?.preview;
    assert.ok(preview?.summary, `the preview proposes a summary: ${JSON.stringify(preview)}`);
    const proposed = preview.summary;
    const typed = `${proposed}\nKeep: the logger must stay synchronous; the user asked for that twice.`;
    await fromWebview({ type: 'confirmCompaction', summary: typed });
    assert.deepEqual(problems, []);

    const entry = (await store.listCompactionEvents(session.info.id)).sort((a, b) => b.startedAt - a.startedAt)[0];
    assert.equal(entry.status, 'complete');
    assert.equal(entry.summary, typed, 'the history entry holds what was typed');
    assert.equal(entry.originalSummary, proposed, 'and the summary Tally proposed');

    scripted().enqueue({ type: 'reply', parts: [{ text: 'Continuing with the logger.' }] });
    const before = await store.nextRequestIndex(session.info.id);
    await t.sessions.send('Continue.');
    await turnEnded();
    const next = (await store.requestUsageAt(session.info.id, before))!;
    const summaryItem = next.items.find((i) => i.kind === 'summary');
    assert.ok(summaryItem, 'the next request carries the summary');
    const { text } = await requestItemText({ store, sessionId: session.info.id, requestIndex: next.requestIndex, itemId: summaryItem.messageId, working: (await t.sessions.current()).contextSession.messages });
    assert.equal(text.slice(text.indexOf('\n') + 1), typed, 'after its header line, the summary the model reads is what was typed');
    assert.ok(scripted().requests.at(-1)!.rawBody.includes(JSON.stringify(typed).slice(1, -1)), 'and it is on the wire');
  });
});
