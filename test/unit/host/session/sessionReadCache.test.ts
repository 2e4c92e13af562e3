import { strict as assert } from 'assert';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import type { CompactionEventRecord, TurnUsageRecord } from '../../../../src/core/model/records';
import { withSessionReadCache } from '../../../../src/host/session/sessionReadCache';
import { openStore } from '../../../../src/node/store';
import { countingStore } from '../../../support/countingStore';

function usage(sessionId: string, requestIndex: number): TurnUsageRecord {
  return {
    id: `usage-${requestIndex}`,
    sessionId,
    requestIndex,
    createdAt: 100 + requestIndex,
    model: 'test-model', contextWindow: 200_000, maxOutputTokens: 8_000,
    estimatedInputTokens: 1_000 + requestIndex,
    reportedInputTokens: 1_010 + requestIndex,
    components: { system: 10, skills: 0, tools: 20, messages: 970, toolResults: 0, summaries: 0 },
    items: [{ messageId: 'm', role: 'user', kind: 'user', tokens: 7, badges: [], preview: 'hi' }],
  } as TurnUsageRecord;
}

/** Counts the reads (load… and list… calls) that reach the sql.js store under the cache. */
const countingReads = (store: SessionStore) => countingStore(store, /^(load|list)/);

describe('session reads kept in memory for the views', () => {
  let folder: string;
  let raw: SessionStore;
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tally-readcache-'));
    raw = await openStore(folder, { debounceMs: 5 });
  });
  afterEach(async () => {
    await raw.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('reads a session from disk once, then answers from memory with every later write included', async () => {
    const { store: counted, reads } = countingReads(raw);
    const store = withSessionReadCache(counted);
    const session = await store.createSession({ title: 'cached' });
    const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' };
    await store.putMessages(session.id, [userMessage('read a.ts', { createdAt: 1 }), assistantMessage('', [call], { createdAt: 2 })]);

    assert.equal((await store.loadTranscript(session.id)).length, 2);
    for (let i = 0; i < 5; i++) await store.loadTranscript(session.id);
    assert.equal(reads.loadTranscript, 1, 'the transcript is decoded once');

    const result = toolResultMessage(call, 'export const a = 1;', { createdAt: 3 });
    await store.putMessages(session.id, [result]);
    const after = await store.loadTranscript(session.id);
    assert.deepEqual(after.map((m) => m.content), ['read a.ts', '', 'export const a = 1;']);
    assert.equal(reads.loadTranscript, 1);

    // A message written again (its count memoized, or hidden) replaces the old one in place.
    await store.putMessages(session.id, [{ ...result, content: 'export const a = 2;' }]);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.content), ['read a.ts', '', 'export const a = 2;']);

    // What the cache answers is what the disk holds.
    await raw.flush();
    const reopened = await openStore(folder, { debounceMs: 5 });
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.content), after.map((m, i) => (i === 2 ? 'export const a = 2;' : m.content)));
    await reopened.close();
  });

  it('keeps compaction events and usage figures current without reading them again', async () => {
    const { store: counted, reads } = countingReads(raw);
    const store = withSessionReadCache(counted);
    const session = await store.createSession({ title: 'figures' });
    await store.loadTranscript(session.id);
    assert.equal((await store.listTurnUsage(session.id, { items: false })).length, 0);
    assert.equal((await store.listCompactionEvents(session.id)).length, 0);
    await store.addTurnUsage(usage(session.id, 0));
    await store.addTurnUsage(usage(session.id, 1));
    const event = { id: 'cmp-1', sessionId: session.id, trigger: 'manual', status: 'skipped', startedAt: 5, tokensBefore: 10 } as unknown as CompactionEventRecord;
    await store.addCompactionEvent(event);

    const figures = await store.listTurnUsage(session.id, { items: false });
    assert.deepEqual(figures.map((r) => r.reportedInputTokens), [1_010, 1_011]);
    assert.ok(figures.every((r) => r.items.length === 0), 'figures only: no item lists kept');
    assert.deepEqual((await store.listCompactionEvents(session.id)).map((e) => e.id), ['cmp-1']);
    assert.equal(reads.listTurnUsage, 1);
    assert.equal(reads.listCompactionEvents, 1);
    // The item lists still come from the store, in full.
    assert.equal((await store.listTurnUsage(session.id))[1].items.length, 1);
  });

  it('does not keep a read that overlapped a write, so no message is ever missing', async () => {
    const store = withSessionReadCache(raw);
    const session = await store.createSession({ title: 'race' });
    await raw.putMessages(session.id, [userMessage('first', { createdAt: 1 })]);
    const reading = store.loadTranscript(session.id);
    const writing = store.putMessages(session.id, [userMessage('second', { createdAt: 2 })]);
    await Promise.all([reading, writing]);
    const later: Message[] = await store.loadTranscript(session.id);
    assert.deepEqual(later.map((m) => m.content), ['first', 'second']);
  });

  it('answers a read of the messages after a time (resuming from a snapshot) with those messages only, cached or not', async () => {
    const store = withSessionReadCache(raw);
    const session = await store.createSession({ title: 'after' });
    await store.putMessages(session.id, [userMessage('old', { createdAt: 10 }), userMessage('new', { createdAt: 20 })]);
    assert.deepEqual((await store.loadTranscript(session.id, { createdAfter: 15 })).map((m) => m.content), ['new']);
    await store.loadTranscript(session.id);
    assert.deepEqual((await store.loadTranscript(session.id, { createdAfter: 15 })).map((m) => m.content), ['new']);
  });

  it('forgets a deleted session', async () => {
    const store = withSessionReadCache(raw);
    const session = await store.createSession({ title: 'gone' });
    await store.putMessages(session.id, [userMessage('hello', { createdAt: 1 })]);
    assert.equal((await store.loadTranscript(session.id)).length, 1);
    await store.putMessages(session.id, [userMessage('again', { createdAt: 2 })]);
    await store.deleteSession(session.id);
    assert.equal(await store.getSession(session.id), undefined);
    // Whatever the store answers for a deleted session, the cache does not answer from before.
    assert.deepEqual(await store.loadTranscript(session.id), await raw.loadTranscript(session.id));
  });

  it('opens the chat with its newest page of a session that was read whole (resumed without ever compacting), not every message', async () => {
    const store = withSessionReadCache(raw);
    const session = await store.createSession({ title: 'never compacted' });
    await store.putMessages(session.id, Array.from({ length: 1_000 }, (_, i) => userMessage(`m${i}`, { createdAt: i + 1 })));
    assert.equal((await store.loadTranscript(session.id)).length, 1_000, 'resumed whole');
    const first = await store.loadRecentTranscript(session.id, 200);
    assert.equal(first.messages.length, 200);
    assert.deepEqual([first.messages[0].content, first.messages[199].content], ['m800', 'm999']);
    assert.equal(first.complete, false);
    assert.equal(first.complete === false && first.createdAfter, 800, 'Show earlier reads from the newest message left out');
    // What the store gives for the same page.
    assert.deepEqual((await raw.loadRecentTranscript(session.id, 200)).messages.map((m) => m.id), first.messages.map((m) => m.id));
    assert.equal((await store.loadRecentTranscript(session.id, 400)).messages.length, 400, 'Show earlier');
    assert.equal((await store.loadRecentTranscript(session.id, 2_000)).complete, true);
  });

  it('reads once what the chat and the inspector ask for at the same time as a session opens, and keeps it', async () => {
    const { store: counted, reads } = countingReads(raw);
    const store = withSessionReadCache(counted);
    const session = await store.createSession({ title: 'both views' });
    await store.putMessages(session.id, [userMessage('hello', { createdAt: 1 })]);
    await store.addTurnUsage(usage(session.id, 0));
    const refresh = () => Promise.all([store.loadRecentTranscript(session.id, 200), store.listCompactionEvents(session.id), store.listTurnUsage(session.id, { items: false }), store.listBlobs(session.id)]);
    const [chat, inspector] = await Promise.all([refresh(), refresh()]);
    assert.deepEqual(chat, inspector);
    assert.equal(chat[2].length, 1);
    await refresh();
    assert.deepEqual(reads, { loadRecentTranscript: 1, listCompactionEvents: 1, listTurnUsage: 1, listBlobs: 1 });
  });
});
