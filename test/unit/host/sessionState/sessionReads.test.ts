import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { countingStore } from '../../../support/countingStore';
import { following, openState } from '../../../support/sessionStates';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 700, skills: 0, tools: 300 };
const LIST_READS = /^(load|list|turnUsageAt|nextRequestIndex|getBlobInfo)/;

async function openSession(store: SessionStore, sessionId: string, page = 200) {
  const [session, view] = await Promise.all([
    ContextSession.open({ store, sessionId, counter, settings: withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000, offloadThresholdBytes: 2_000 }) }),
    openState(store, sessionId, page),
  ]);
  following(view, session);
  return { session, view };
}

/** One agent turn as the loop records it: the user's message, a request, a call, its result, a request, the reply. */
async function turn(session: ContextSession, n: number, output = `ok ${n}`) {
  await session.appendUser(`request ${n}`);
  await session.recordResponse(await session.nextRequest({ fixed: FIXED }), { model: 'claude-sonnet-4-5', reported: { inputTokens: 2_000 + n, outputTokens: 20 } });
  const call = { id: `c${n}`, name: 'run_command', arguments: JSON.stringify({ command: `npm test -- ${n}` }) };
  await session.append(assistantMessage(`Running ${n}.`, [call]));
  await session.recordToolResult(call, output);
  await session.recordResponse(await session.nextRequest({ fixed: FIXED }), { model: 'claude-sonnet-4-5', reported: { inputTokens: 2_100 + n, outputTokens: 30 } });
  await session.append(assistantMessage(`Done ${n}.`));
}

describe('the session state: read once when the session opens, then kept by its changes', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;

  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 'view' })).id;
  });
  afterEach(() => env.dispose());

  it('folds every write into what the chat and the inspector show, reading nothing back, the same as a view read afresh', async () => {
    const { store, reads } = countingStore(env.store, LIST_READS);
    const { session, view } = await openSession(store, sessionId);
    for (const key of Object.keys(reads)) delete reads[key];
    for (let n = 0; n < 6; n++) await turn(session, n, n === 3 ? 'FAIL\n'.repeat(2_000) : `ok ${n}`);
    await session.compact({ trigger: 'manual' });
    assert.deepEqual(reads, {}, `read back: ${JSON.stringify(reads)}`);

    const fresh = await openState(env.store, sessionId, 200);
    assert.deepEqual(view.entries.entries(), fresh.entries.entries());
    assert.deepEqual(view.entries.lastTurnFigures(), fresh.entries.lastTurnFigures());
    assert.deepEqual(view.records.requests, fresh.records.requests);
    assert.deepEqual(view.records.compactions.map((c) => c.id), fresh.records.compactions.map((c) => c.id));
    assert.deepEqual(view.records.blobs.map((b) => b.id), fresh.records.blobs.map((b) => b.id));
    assert.equal(view.records.blobs.length, 1);
  });

  it('names a result by its tool, its call and the request that first carries it, decided when it is stored', async () => {
    const { session, view } = await openSession(env.store, sessionId);
    await turn(session, 0);
    await turn(session, 1, 'FAIL\n'.repeat(2_000));
    const [blob] = view.records.blobs;
    assert.equal(view.records.blobTitles.get(blob.id), 'run_command npm test -- 1 · request #3');
    // A view opened later names the results stored before it from the calls it reads.
    const fresh = await openState(env.store, sessionId, 200);
    await fresh.reads.seedTitles();
    assert.match(fresh.records.blobTitles.get(blob.id) ?? '', /^run_command npm test -- 1( · request #\d+)?$/);
  });

  it('opens with the newest page; "Show earlier" reads the page before it until the whole chat is shown', async () => {
    const { session } = await openSession(env.store, sessionId);
    for (let n = 0; n < 12; n++) await turn(session, n);
    const { view } = await openSession(env.store, sessionId, 10);
    assert.ok((view.records.heldFrom !== undefined));
    const whole = await openState(env.store, sessionId, 10_000);
    assert.ok(whole.records.heldFrom === undefined);
    assert.ok(view.entries.entries().length < whole.entries.entries().length);
    while ((view.records.heldFrom !== undefined)) assert.ok(await view.reads.showEarlier(10));
    assert.deepEqual(view.entries.entries(), whole.entries.entries());
    assert.equal(await view.reads.showEarlier(10), false);
  });

  it('takes its first page from the messages the session read to resume, cut as the store cuts a page, instead of reading them again', async () => {
    const { session } = await openSession(env.store, sessionId);
    for (let n = 0; n < 12; n++) await turn(session, n);
    const { store, reads } = countingStore(env.store, /^loadRecentTranscript$/);
    const resuming = ContextSession.open({ store, sessionId, counter, settings: withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000 }) });
    const handed = await openState(store, sessionId, 10, resuming.then((s) => s.takeResumedTranscript()));
    assert.deepEqual(reads, {}, 'the page came from the resumed transcript');
    const read = await openState(env.store, sessionId, 10);
    assert.deepEqual(handed.entries.entries(), read.entries.entries());
    assert.equal(handed.records.heldFrom, read.records.heldFrom);
    assert.equal((await resuming).takeResumedTranscript(), undefined, 'handed over once');
  });

  it('a pin rewrites a message already shown: its entry is made again where it stands and the chat stays the same', async () => {
    const { session, view } = await openSession(env.store, sessionId);
    await turn(session, 0);
    const before = view.entries.entries();
    const user = session.messages.find((m) => m.role === 'user')!;
    assert.ok(await session.setPinned(user.id, true));
    assert.deepEqual(view.entries.entries(), before);
  });
});
