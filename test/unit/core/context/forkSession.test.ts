import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { FixedComponents } from '../../../../src/core/accounting/usageBasis';
import type { Message } from '../../../../src/core/model/message';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { forkPointOf } from '../../../../src/core/context/forkPoint';
import { forkSession } from '../../../../src/core/context/forkSession';
import { conversationItemsOf } from '../../../../src/core/context/messageItems';
import { requestItemFullText } from '../../../../src/core/context/itemText';
import { withSettings } from '../../../../src/core/settings';
import { scriptedTurns } from '../../../support/syntheticSession';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';
import { refsIn } from '../../../../src/core/compaction/strategies/storeReplaced';

const counter = getTokenCounter('o200k_base');
const FIXED: FixedComponents = { system: 1_500, skills: 0, tools: 1_200 };
const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000, offloadThresholdBytes: 4_000, masking: { keepLast: 1, minBatchTokens: 0 } });

let ids = 0;
const message = (m: Partial<Message> & Pick<Message, 'role' | 'kind' | 'content'>): Message => ({ id: `m${++ids}`, agentVisible: true, userVisible: true, createdAt: 0, ...m });
const open = (store: SessionStore, sessionId: string) => ContextSession.open({ store, sessionId, settings, counter });

async function sendRequest(session: ContextSession) {
  const request = await session.nextRequest({ fixed: FIXED });
  return session.recordResponse(request, { model: 'test-model', reported: { inputTokens: request.plan.budget.used + 37, outputTokens: 10 } });
}

/**
 * A session with everything a request can carry: a pinned user message, a compaction's summary,
 * archived pointers (a second compaction), an attachment, thinking sent back and an offloaded
 * result. Request #1 carries them all; the pin is taken off after it, and request #2 follows.
 */
async function richSession(store: SessionStore, otherRef: string) {
  const { id } = await store.createSession({ title: 'Logger work', model: 'test-model' });
  const session = await open(store, id);
  const [user] = await session.append(message({ role: 'user', kind: 'user', content: 'Refactor the logger.' }));
  await session.setPinned(user.id, true);
  const turns = async (n: number) => {
    for (const turn of scriptedTurns(n, 3, 1000)) {
      await session.append(message({ role: 'assistant', kind: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call) }));
      for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
    }
  };
  await turns(30);
  await sendRequest(session); // #0
  assert.equal((await session.compact({ trigger: 'manual', only: ['threshold-summarization'] })).status, 'complete');
  await turns(4);
  assert.equal((await session.compact({ trigger: 'manual', only: ['tool-result-masking'] })).status, 'complete');
  await session.append(message({ role: 'user', kind: 'attachment', content: 'src/logger.ts\nexport function log() {}', meta: { attachment: { kind: 'file', label: 'src/logger.ts', path: 'src/logger.ts' } } }));
  // A message that names another session's result: the fork must not be able to read it.
  await session.append(message({ role: 'user', kind: 'user', content: `Now add a test. Also look at ${otherRef}.` }));
  const big = { id: 'call-big', name: 'run_command', arguments: '{"command":"npm test"}' };
  await session.appendAssistant('', [big], [{ format: 'anthropic', text: 'I should run the tests first.', signature: 'sig-1' }]);
  const offloaded = await session.recordToolResult(big, 'test output line\n'.repeat(2_000));
  const first = await sendRequest(session); // #1
  await session.setPinned(user.id, false);
  await session.append(message({ role: 'assistant', kind: 'assistant', content: 'Added the test.' }), message({ role: 'user', kind: 'user', content: 'Thanks.' }));
  await sendRequest(session); // #2
  return { id, session, user, offloaded, request1: first };
}

describe('forking a session from one of its requests', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-fork-');

  it('starts a session whose first request carries what request #1 carried (ids, text, tokens, pins), resumable from disk, its results readable after the original is deleted', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 5 });
    const other = await store.createSession({ title: 'someone else' });
    const otherRef = (await store.putBlob(other.id, { toolName: 'read_file', content: new TextEncoder().encode('secret of another session') })).id;
    const { id, session, user, offloaded, request1 } = await richSession(store, otherRef);
    const sent = conversationItemsOf(await store.requestUsageAt(id, 1).then((r) => r!));
    for (const badge of ['summarized', 'archived', 'offloaded', 'thinking', 'pinned'] as const) assert.ok(sent.some((i) => i.badges.includes(badge)), `request #1 carried an item ${badge}`);
    assert.ok(sent.some((i) => i.kind === 'attachment'), 'and an attachment');
    assert.ok(sent.find((i) => i.messageId === user.id)?.badges.includes('pinned'), 'request #1 sent the user message pinned');
    const historyBefore = await store.listCompactionEvents(id);

    const forked = await forkSession(store, { fromSessionId: id, fromRequestIndex: 1 });
    assert.equal(forked.info.title, 'Fork of Logger work at #1');
    assert.deepEqual(forkPointOf(forked.info), { fromSessionId: id, fromRequestIndex: 1 });
    assert.ok((await store.listSessions()).some((s) => s.id === forked.info.id), 'the fork is in the session list');
    assert.deepEqual(await store.listCompactionEvents(id), historyBefore, 'the original session records nothing');
    const [entry] = await store.listCompactionEvents(forked.info.id);
    assert.deepEqual([entry.trigger, entry.step], ['fork', { kind: 'fork', fromSessionId: id, fromRequestIndex: 1 }]);
    assert.equal(entry.tokensBefore, request1.reportedInputTokens, 'the entry keeps the figure the original request shows');
    assert.equal(entry.tokensAfter, request1.estimatedInputTokens, 'and the one the fork shows until its own first request');

    // The fork's first request: the same conversation items, then the new message.
    const fork = await open(store, forked.info.id);
    await fork.appendUser('Go on from here.');
    const firstOfFork = await sendRequest(fork);
    assert.equal(firstOfFork.requestIndex, 0);
    const carried = conversationItemsOf((await store.requestUsageAt(forked.info.id, 0))!);
    assert.deepEqual(carried.slice(0, sent.length), sent, 'same ids, kinds, tokens, badges (pins) and previews, in order');
    assert.deepEqual(carried.slice(sent.length).map((i) => i.preview), ['Go on from here.']);
    for (const item of sent) {
      const there = await requestItemFullText({ store, sessionId: id, requestIndex: 1, itemId: item.messageId, working: session.messages });
      const here = await requestItemFullText({ store, sessionId: forked.info.id, requestIndex: 0, itemId: item.messageId, working: fork.messages });
      assert.equal(here.text, there.text, `the text of ${item.kind} ${item.messageId}`);
    }
    const thinking = fork.messages.find((m) => m.reasoning?.length);
    assert.deepEqual(thinking?.reasoning, [{ format: 'anthropic', text: 'I should run the tests first.', signature: 'sig-1' }], 'thinking blocks as sent');

    // Stored results the forked messages refer to (their own, and those the summary lists): readable and listed in the fork, another session's not.
    const listed = new Set((await store.listBlobs(forked.info.id)).map((b) => b.id));
    const own = forked.messages.flatMap((m) => (m.meta?.offloadRef ? [m.meta.offloadRef] : []));
    const summaryRefs = refsIn(forked.messages.filter((m) => m.kind === 'summary'));
    assert.ok(own.includes(offloaded.meta!.offloadRef!) && own.length > 1 && summaryRefs.length > 0, 'the offloaded result, archived ones and the summary\'s');
    for (const ref of [...own, ...summaryRefs]) assert.ok(listed.has(ref), `${ref} is listed in the fork`);
    for (const ref of listed) assert.ok((await store.readBlob(forked.info.id, ref, 0, 16)).bytes.length > 0);
    assert.ok(!listed.has(otherRef));
    await assert.rejects(store.readBlob(forked.info.id, otherRef, 0, 16), /no stored result/, 'a ref id named in a message reads nothing it did not own');

    // The original deleted, the store closed and opened again from disk: the fork resumes whole.
    await store.deleteSession(id);
    const expected = fork.messages.map((m) => [m.id, m.pinned ?? false]);
    await store.close();
    const reopened = await stores.openStore(folder, { debounceMs: 5 });
    const resumed = await open(reopened, forked.info.id);
    assert.deepEqual(resumed.messages.map((m) => [m.id, m.pinned ?? false]), expected);
    for (const ref of listed) assert.equal((await reopened.readBlob(forked.info.id, ref, 0, 16)).offset, 0);
    assert.equal(await reopened.getSession(id), undefined, 'the original is gone');
  });

  it('takes the copy the request sent when a message was pinned only later', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const { id } = await store.createSession({ title: 'pins' });
    const session = await open(store, id);
    const [first] = await session.append(message({ role: 'user', kind: 'user', content: 'Keep this in mind.' }));
    await sendRequest(session);
    await session.setPinned(first.id, true);
    const forked = await forkSession(store, { fromSessionId: id, fromRequestIndex: 0 }, { working: session.messages });
    assert.equal(forked.messages[0].pinned, undefined, 'request #0 sent it unpinned');
    const fork = await open(store, forked.info.id);
    assert.ok(!fork.messages[0].pinned);
  });

  it('sends and shows again a message the request carried that a retry hid later', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const { id } = await store.createSession({ title: 'retried' });
    const session = await open(store, id);
    const [asked] = await session.append(message({ role: 'user', kind: 'user', content: 'Try the flaky request.' }));
    await sendRequest(session);
    // What Retry does to the failed attempt: hidden from the model and the chat, kept in the transcript.
    await store.putMessages(id, [{ ...asked, agentVisible: false, userVisible: false }]);
    const forked = await forkSession(store, { fromSessionId: id, fromRequestIndex: 0 });
    assert.deepEqual([forked.messages[0].agentVisible, forked.messages[0].userVisible], [true, true]);
    const fork = await open(store, forked.info.id);
    assert.deepEqual(fork.planRequest().messages.map((m) => m.content), ['Try the flaky request.']);
  });

  it('refuses clearly what it cannot fork, and stores nothing', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const { id } = await store.createSession({ title: 'short' });
    const session = await open(store, id);
    await session.appendUser('Hello.');
    await sendRequest(session);
    const before = (await store.listSessions()).length;
    await assert.rejects(forkSession(store, { fromSessionId: 'no-such-session', fromRequestIndex: 0 }), /session no-such-session is not stored/);
    await assert.rejects(forkSession(store, { fromSessionId: id, fromRequestIndex: 7 }), /"short" has no request #7/);
    await assert.rejects(forkSession(store, { fromSessionId: id, fromRequestIndex: -1 }), /"-1" is not a request number/);
    await assert.rejects(forkSession(store, { fromSessionId: id, fromRequestIndex: 0.5 }), /"0.5" is not a request number/);
    await assert.rejects(forkSession(store, { fromSessionId: '', fromRequestIndex: 0 }), /needs the session/);

    // A request that carried a summary a later compaction replaced (it is in no snapshot or transcript now).
    const record = (await store.requestUsageAt(id, 0))!;
    const gone = { ...record.items[0], messageId: 'summary-gone', role: 'user', kind: 'summary', badges: ['summarized' as const], preview: 'Goal: the old goal', section: 'conversation' as const };
    await store.addRequestUsage({ ...record, id: 'u-replaced', requestIndex: 1, items: [gone, ...record.items] });
    await assert.rejects(forkSession(store, { fromSessionId: id, fromRequestIndex: 1 }), /request #1 carried a summary that a later compaction replaced/);
    assert.equal((await store.listSessions()).length, before, 'no session was made');
  });
});
