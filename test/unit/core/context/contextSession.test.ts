import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import type { FixedComponents } from '../../../../src/core/accounting/usageBasis';
import type { CompactionEvent } from '../../../../src/core/compaction/events';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { call, scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED: FixedComponents = { system: 1_500, skills: 0, tools: 1_200 };

function userMessage(content: string): Message {
  return { id: '', role: 'user', kind: 'user', content, agentVisible: true, userVisible: true, createdAt: 0 };
}

function assistant(content: string, toolCalls?: Message['toolCalls']): Message {
  return { id: '', role: 'assistant', kind: 'assistant', content, toolCalls, agentVisible: true, userVisible: true, createdAt: 0 };
}

let ids = 0;
function withId(m: Message): Message {
  return { ...m, id: `m${++ids}` };
}

async function openManager(store: SessionStore, sessionId: string, window = 32_000) {
  return ContextSession.open({
    store,
    sessionId,
    settings: withSettings({ contextWindow: window, maxOutputTokens: 4_000 }),
    counter,
  });
}

/** A user's request, then scripted assistant turns with their tool results. */
async function fill(session: ContextSession, request: string, turns: ReturnType<typeof scriptedTurns>) {
  await session.append(withId(userMessage(request)));
  for (const turn of turns) {
    await session.append(withId(assistant(turn.assistantText, turn.calls.map((c) => c.call))));
    for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
  }
}

describe('context session', function () {
  this.timeout(120_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;

  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 'test' })).id;
  });
  afterEach(async () => env.dispose());

  it('keeps every request of a 300-turn tool-heavy session under the effective window with valid pairs', async () => {
    const session = await openManager(env.store, sessionId);
    const events: CompactionEvent[] = [];
    session.onCompaction((e) => events.push(e));
    let maxUsed = 0;
    let requests = 0;
    for (const turn of scriptedTurns(300)) {
      if (turn.user) await session.append(withId(userMessage(turn.user)));
      const request = await session.nextRequest({ fixed: FIXED });
      assert.equal(request.status, 'ready');
      const { plan } = request;
      assert.deepEqual(validateHistory(plan.messages), [], `request ${requests} has broken pairs`);
      assert.ok(plan.budget.used <= plan.budget.effectiveWindow, `request ${requests}: ${plan.budget.used} > ${plan.budget.effectiveWindow}`);
      assert.equal(plan.repaired, 0, 'the write path kept the history valid');
      maxUsed = Math.max(maxUsed, plan.budget.used);
      await session.recordResponse(request, { model: 'test-model', reported: { inputTokens: plan.budget.used, outputTokens: 50 } });
      requests++;
      await session.append(withId(assistant(turn.assistantText, turn.calls.map((c) => c.call))));
      for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
    }
    const completes = events.filter((e) => e.type === 'complete');
    assert.ok(completes.length >= 3, `expected several compactions, saw ${completes.length}`);
    const started = events.filter((e) => e.type === 'start').map((e) => e.id);
    const ended = events.filter((e) => e.type === 'complete' || e.type === 'error').map((e) => e.id);
    assert.deepEqual(ended, started, 'every start ends in exactly one complete or error');
    assert.ok(maxUsed > 0.5 * session.measure(FIXED).effectiveWindow, 'the window was actually used');

    const history = await env.store.listCompactionEvents(sessionId);
    assert.equal(history.length, completes.length);
    for (const event of history) {
      assert.ok(event.tokensAfter < event.tokensBefore, 'each compaction freed tokens');
      assert.ok(event.removed.length > 0);
      assert.ok(event.strategies.length > 0);
    }
    // Nothing silently lost: the transcript still has every original message.
    const transcript = await env.store.loadTranscript(sessionId);
    const toolResults = transcript.filter((m) => m.role === 'tool').length;
    const expectedResults = scriptedTurns(300).reduce((n, t) => n + t.calls.length, 0);
    assert.equal(toolResults, expectedResults);
    const usage = await env.store.listRequestUsage(sessionId);
    assert.equal(usage.length, 300);
    assert.ok(usage.some((u) => u.compactionId === undefined));
  });

  it('plans the next request in one call: builds the prompt, compacts when full, builds it again for the room left', async () => {
    const session = await openManager(env.store, sessionId, 16_000);
    await fill(session, 'Investigate the flaky build.', scriptedTurns(20, 11, 1000));
    const rooms: number[] = [];
    const request = await session.nextRequest((room) => {
      rooms.push(room.percentUsed);
      return { fixed: FIXED, label: `prompt ${rooms.length}` };
    });
    assert.equal(request.status, 'ready');
    assert.equal(request.compaction?.status, 'complete', 'the full context was compacted before planning');
    assert.equal(request.compactionId, request.compaction?.id);
    assert.equal(rooms.length, 2, 'the prompt is built again after the compaction');
    assert.ok(rooms[1] < rooms[0], `the second build sees the room compaction made (${rooms[0]} → ${rooms[1]})`);
    assert.equal(request.prompt.label, 'prompt 2', 'the request carries the prompt built last');
    assert.deepEqual(validateHistory(request.plan.messages), []);
    assert.ok(request.plan.budget.used <= request.plan.budget.effectiveWindow);

    const record = await session.recordResponse(request, { model: 'test-model', reported: { inputTokens: request.plan.budget.used } });
    assert.equal(record.requestIndex, request.requestIndex);
    assert.equal(record.compactionId, request.compactionId, 'the ledger links the request to its compaction');
    const next = await session.nextRequest({ fixed: FIXED });
    assert.equal(next.compaction, undefined, 'no compaction while there is room');
    assert.equal(next.requestIndex, record.requestIndex + 1);
  });

  it('re-plans a request the provider refused as too long, once compacted', async () => {
    const session = await openManager(env.store, sessionId, 32_000);
    await fill(session, 'Explore the repository.', scriptedTurns(12, 5, 1000));
    const request = await session.nextRequest({ fixed: FIXED });
    assert.equal(request.compaction, undefined);
    const retried = await session.recoverFromOverflow(request);
    assert.equal(retried.recovered, true);
    assert.equal(retried.compaction?.trigger, 'overflow');
    assert.ok(retried.plan.budget.used < request.plan.budget.used, 'the retried request is smaller');
    assert.deepEqual(validateHistory(retried.plan.messages), []);
  });

  it('records every removed item with its reason, and archived outputs stay retrievable', async () => {
    const session = await openManager(env.store, sessionId, 16_000);
    await session.append(withId(userMessage('Investigate the flaky build.')));
    for (const turn of scriptedTurns(40, 11, 1000)) {
      await session.append(withId(assistant(turn.assistantText, turn.calls.map((c) => c.call))));
      for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
      await session.nextRequest({ fixed: FIXED });
    }
    const history = await env.store.listCompactionEvents(sessionId);
    const removed = history.flatMap((e) => e.removed);
    assert.ok(removed.length > 0);
    const transcriptIds = new Set((await env.store.loadTranscript(sessionId)).map((m) => m.id));
    for (const item of removed) {
      assert.ok(['archived', 'tool_summarized', 'summarized', 'episodic', 'dropped'].includes(item.reason));
      // Either the original is in the transcript, or it was a synthetic item that itself replaced originals.
      if (!item.messageId.startsWith('m')) continue;
    }
    const archived = removed.filter((r) => r.reason === 'archived');
    for (const item of archived) {
      assert.ok(transcriptIds.has(item.messageId), `archived ${item.messageId} is in the transcript`);
      assert.ok(item.offloadRef, 'archived output has a ref to read it back');
      const info = await env.store.getBlobInfo(sessionId, item.offloadRef!);
      assert.ok(info && info.byteSize > 0);
    }
  });

  it('resumes a compacted session from its snapshot, then appends what came after', async () => {
    const session = await openManager(env.store, sessionId);
    await fill(session, 'Refactor the logger.', scriptedTurns(30, 3, 1000));
    const result = await session.compact({ trigger: 'manual', focus: 'logger API' });
    assert.equal(result.status, 'complete');
    assert.ok(result.tokensAfter < result.tokensBefore);
    await session.append(withId(userMessage('Now add a test for it.')));
    const expected = session.messages.map((m) => m.id);
    await env.store.flush();

    const resumed = await openManager(env.store, sessionId);
    assert.deepEqual(resumed.messages.map((m) => m.id), expected);
    assert.equal(resumed.messages[resumed.messages.length - 1].content, 'Now add a test for it.');
    assert.ok(resumed.measure(FIXED).used < result.tokensBefore, 'resume does not reload the pre-compaction history');
    const transcriptIds = new Set((await env.store.loadTranscript(sessionId)).map((m) => m.id));
    for (const item of result.removed) assert.ok(transcriptIds.has(item.messageId), `removed ${item.messageId} stays in the transcript for audit`);
  });

  it('reads the session\'s files while the encoder loads, not after', async function () {
    this.timeout(20_000); // the code before waited for ever here
    const session = await openManager(env.store, sessionId);
    await session.append(withId(userMessage('Hello.')));
    await env.store.flush();
    // An encoder that finishes loading only once the store has been read: opening waits for it.
    let storeRead!: () => void;
    const read = new Promise<void>((resolve) => (storeRead = resolve));
    const store = new Proxy(env.store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (...args: unknown[]) => (storeRead(), (value as (...a: unknown[]) => unknown).apply(target, args)) : value;
      },
    });
    const slowCounter = new Proxy(counter, {
      get(target, property, receiver) {
        if (property === 'load') return () => read.then(() => target.load());
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const resumed = await ContextSession.open({ store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter: slowCounter });
    assert.equal(resumed.messages[resumed.messages.length - 1].content, 'Hello.');
  });

  it('resumes with the counts stored with the messages instead of counting them again', async () => {
    const session = await openManager(env.store, sessionId);
    await session.append(withId(userMessage('Refactor the logger. '.repeat(200))));
    await session.append(withId(assistant('Done. '.repeat(300))));
    const used = session.measure(FIXED).used;
    await env.store.flush();
    let counted = 0;
    const spy: typeof counter = Object.create(counter);
    spy.count = (text: string) => (counted++, counter.count(text));
    const resumed = await ContextSession.open({ store: env.store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter: spy });
    assert.equal(resumed.measure(FIXED).used, used);
    assert.equal(counted, 0, 'no message was counted again');
  });

  it('previews a compaction without changing anything, then confirms it', async () => {
    const session = await openManager(env.store, sessionId);
    await fill(session, 'Explore the repository.', scriptedTurns(25, 5, 1000));
    const before = session.messages.map((m) => m.id);
    const preview = await session.compact({ trigger: 'manual', dryRun: true });
    assert.equal(preview.dryRun, true);
    assert.ok(preview.tokensAfter < preview.tokensBefore);
    assert.deepEqual(session.messages.map((m) => m.id), before, 'preview changed nothing');
    assert.equal((await env.store.listCompactionEvents(sessionId)).length, 0, 'preview stored no event');
    assert.equal(await env.store.loadSnapshot(sessionId), undefined);

    const confirmed = await session.compact({ trigger: 'manual' });
    assert.deepEqual(confirmed.strategies, preview.strategies);
    assert.ok(Math.abs(confirmed.tokensAfter - preview.tokensAfter) <= preview.tokensAfter * 0.01, 'the preview predicted the result');
    assert.deepEqual(confirmed.removed.map((r) => r.messageId), preview.removed.map((r) => r.messageId));
    assert.equal((await env.store.listCompactionEvents(sessionId)).length, 1);
  });

  it('never removes a pinned item', async () => {
    const session = await openManager(env.store, sessionId);
    await session.append(withId(userMessage('Keep the schema in mind.')));
    let pinnedId = '';
    for (const [i, turn] of scriptedTurns(25, 9, 1000).entries()) {
      await session.append(withId(assistant(turn.assistantText, turn.calls.map((c) => c.call))));
      for (const c of turn.calls) {
        const recorded = await session.recordToolResult(c.call, c.output, { isError: c.isError });
        if (i === 0 && !pinnedId) pinnedId = recorded.id;
      }
    }
    assert.equal(await session.setPinned(pinnedId, true), true);
    const result = await session.compact({ trigger: 'manual' });
    assert.equal(result.status, 'complete');
    assert.ok(!result.removed.some((r) => r.messageId === pinnedId));
    const pinned = session.messages.find((m) => m.id === pinnedId);
    assert.ok(pinned?.pinned);
    assert.deepEqual(validateHistory(session.planRequest().messages), []);
  });

  it('gives open calls an "aborted" output when the next message arrives or the user cancels', async () => {
    const session = await openManager(env.store, sessionId);
    await session.append(withId(userMessage('Run the tests.')));
    const a = call('run_command', { command: 'npm test' });
    const b = call('read_file', { path: 'a.ts' });
    await session.append(withId(assistant('Running both.', [a, b])));
    await session.recordToolResult(a, 'ok');
    const aborted = await session.abortOpenCalls();
    assert.equal(aborted.length, 1);
    assert.equal(aborted[0].toolCallId, b.id);
    assert.equal(aborted[0].kind, 'aborted');
    assert.deepEqual(validateHistory(session.planRequest().messages), []);
    await assert.rejects(session.recordToolResult(b, 'late'), /refused/);
    const stored = await env.store.loadTranscript(sessionId);
    assert.ok(stored.some((m) => m.kind === 'aborted' && m.toolCallId === b.id), 'the aborted output is stored');
  });

  it('lets reported usage win: the next estimate is the report plus what was added since, with a calibration factor', async () => {
    const session = await openManager(env.store, sessionId);
    await session.append(withId(userMessage('Explain the build system in detail, please.')));
    await session.append(withId(assistant('It uses esbuild and a small script. '.repeat(40))));
    const request = await session.nextRequest({ fixed: FIXED });
    const estimated = request.plan.budget.used;
    const reported = Math.round(estimated * 1.25);
    await session.recordResponse(request, { model: 'claude', reported: { inputTokens: reported, outputTokens: 30 } });
    assert.equal(session.measure(FIXED).used, reported, 'the provider\'s figure replaces the estimate');
    assert.equal(session.measure(FIXED).basis, 'reported');
    const [added] = await session.append(withId(userMessage('And the tests?')));
    assert.equal(session.measure(FIXED).used, reported + countMessage(added, counter), 'only what was added since is estimated');
    const view = session.calibration.view();
    assert.ok(Math.abs(view.factor - 1.25) < 0.01, `factor ${view.factor}`);
    assert.equal(view.samples, 1);
    const usage = await env.store.listRequestUsage(sessionId);
    assert.equal(usage[0].estimatedInputTokens, estimated);
    assert.equal(usage[0].reportedInputTokens, reported);
  });

  it('does not trust a report wildly off the estimate (it could stop compaction)', async () => {
    const session = await openManager(env.store, sessionId);
    await session.append(withId(userMessage('Summarize the repository layout for me.')));
    const request = await session.nextRequest({ fixed: FIXED });
    await session.recordResponse(request, { model: 'proxy', reported: { inputTokens: 12 } });
    assert.equal(session.measure(FIXED).basis, 'estimate');
    assert.equal(session.measure(FIXED).used, request.plan.budget.used);
  });

  it('reports compaction events in order and stores a failed compaction as an error', async () => {
    const session = await ContextSession.open({
      store: env.store,
      sessionId,
      settings: withSettings({ contextWindow: 16_000, maxOutputTokens: 2_000 }),
      counter,
      summarizer: { name: 'broken', summarize: async () => { throw new Error('summarizer exploded'); } },
      strategies: undefined,
    });
    await fill(session, 'Long task.', scriptedTurns(12, 2, 1000));
    const events: CompactionEvent[] = [];
    session.onCompaction((e) => events.push(e));
    const result = await session.compact({ trigger: 'manual', only: ['threshold-summarization'] });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /summarizer exploded/);
    assert.deepEqual(events.map((e) => e.type).filter((t) => t !== 'progress'), ['start', 'error']);
    const stored = await env.store.listCompactionEvents(sessionId);
    assert.equal(stored[0].status, 'error');
    assert.ok(session.messages.length > 10, 'a failed compaction leaves the history as it was');
  });
});
