import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { FixedComponents } from '../../../../src/core/accounting/usageBasis';
import type { CompactionEvent } from '../../../../src/core/compaction/events';
import type { Message } from '../../../../src/core/model/message';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { scriptedTurns } from '../../../support/syntheticSession';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

/**
 * "Context now" is one figure: what the next request would carry, on the provider's reported basis
 * once it reported. A compaction records that figure before and after (with Tally's estimate beside
 * it), and a session opened again (resume, window reload) shows the figure it showed before.
 */
const counter = getTokenCounter('o200k_base');
const FIXED: FixedComponents = { system: 1_500, skills: 0, tools: 1_200 };
const settings = withSettings({ contextWindow: 64_000, maxOutputTokens: 4_000 });
/** The provider counts 8% more than Tally's tokenizer, as a real one often does. */
const PROVIDER_FACTOR = 1.08;

let ids = 0;
const message = (role: 'user' | 'assistant', content: string, extra: Partial<Message> = {}): Message => ({
  id: `m${++ids}`,
  role,
  kind: role,
  content,
  agentVisible: true,
  userVisible: true,
  createdAt: 0,
  ...extra,
});

describe('one figure for the context, on every path', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-one-figure-');

  async function openSession(folder: string, sessionId?: string) {
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const id = sessionId ?? (await store.createSession({ title: 'figures' })).id;
    const session = await ContextSession.open({ store, sessionId: id, settings, counter });
    return { store, id, contextSession: session };
  }

  /** A user's request, a few tool-using turns, and a request the provider reported on (with a turn after it). */
  async function sessionWithReport(session: ContextSession) {
    await session.append(message('user', 'Find out why the parser test fails and fix it.'));
    for (const turn of scriptedTurns(12, 3, 100)) {
      await session.append(message('assistant', turn.assistantText, { toolCalls: turn.calls.map((c) => c.call) }));
      for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
    }
    const request = await session.nextRequest({ fixed: FIXED });
    assert.equal(request.status, 'ready');
    await session.recordResponse(request, { model: 'test-model', reported: { inputTokens: Math.round(request.plan.budget.used * PROVIDER_FACTOR), outputTokens: 40 } });
    await session.append(message('assistant', 'The tokenizer drops the last line when it has no newline; I will fix that.'));
    const budget = session.measure(FIXED);
    assert.equal(budget.basis, 'reported', 'the setup has a trusted report');
    assert.notEqual(budget.used, budget.estimatedTotal, 'the setup has a report that differs from the estimate');
    return budget;
  }

  it('records a compaction in the figures the meter showed before and after, with the estimate beside them', async () => {
    const { contextSession: session } = await openSession(stores.folder());
    const before = await sessionWithReport(session);
    const events: CompactionEvent[] = [];
    session.onCompaction((e) => events.push(e));

    const result = await session.compact({ trigger: 'manual', fixed: FIXED });
    assert.equal(result.status, 'complete');
    const after = session.measure(FIXED);
    assert.equal(result.tokensBefore, before.used, 'before: the meter figure, not the tokenizer alone');
    assert.equal(result.tokensAfter, after.used, 'after: the meter figure right after');
    assert.equal(result.estimatedTokensBefore, before.estimatedTotal);
    assert.equal(result.estimatedTokensAfter, after.estimatedTotal);
    const start = events.find((e) => e.type === 'start');
    assert.equal(start?.type === 'start' && start.tokensBefore, before.used, 'the "Compacting…" notice says the meter figure');
    const complete = events.find((e) => e.type === 'complete');
    assert.equal(complete?.type === 'complete' && complete.record.tokensAfter, after.used, 'the chat notice and the history read the same record');
  });

  it('previews a compaction in the meter figures and leaves the meter as it was', async () => {
    const { contextSession: session } = await openSession(stores.folder());
    const before = await sessionWithReport(session);
    const preview = await session.compact({ trigger: 'manual', fixed: FIXED, dryRun: true });
    assert.equal(preview.tokensBefore, before.used);
    assert.ok(preview.tokensAfter < preview.tokensBefore, 'the preview would save tokens');
    assert.equal(session.measure(FIXED).used, before.used, 'a preview changes nothing');
    const confirmed = await session.compact({ trigger: 'manual', fixed: FIXED });
    // The preview's summary and references are not the stored ones word for word (a few tokens apart
    // by the tokenizer too); what must hold is that both are on the same basis.
    assert.equal(confirmed.tokensAfter - preview.tokensAfter, confirmed.estimatedTokensAfter! - preview.estimatedTokensAfter!, 'the preview and the compaction are on the same basis');
  });

  it('shows the same figure after the session is opened again: after a turn, and after a compaction', async () => {
    const folder = stores.folder();
    const first = await openSession(folder);
    const shown = (await sessionWithReport(first.contextSession)).used;
    await first.store.flush();
    // The window reloads: a new store on the same files, the session opened from them.
    const reopened = await openSession(folder, first.id);
    assert.equal(reopened.contextSession.measure(FIXED).used, shown, 'the figure after a reopen is the one shown before it');
    assert.equal(reopened.contextSession.measure(FIXED).basis, 'reported');

    const compacted = await reopened.contextSession.compact({ trigger: 'manual', fixed: FIXED });
    assert.equal(compacted.status, 'complete');
    const afterCompaction = reopened.contextSession.measure(FIXED).used;
    assert.equal(compacted.tokensAfter, afterCompaction);
    await reopened.store.flush();
    const again = await openSession(folder, first.id);
    assert.equal(again.contextSession.measure(FIXED).used, afterCompaction, 'resumed from the snapshot, the figure is the one the compaction left');
  });

  it('stays on the estimate after a reopen when the last request had no report', async () => {
    const folder = stores.folder();
    const first = await openSession(folder);
    await first.contextSession.append(message('user', 'Hello there, what does this repository do?'));
    const request = await first.contextSession.nextRequest({ fixed: FIXED });
    await first.contextSession.recordResponse(request, { model: 'test-model' });
    const shown = first.contextSession.measure(FIXED);
    assert.equal(shown.basis, 'estimate');
    await first.store.flush();
    const reopened = await openSession(folder, first.id);
    assert.equal(reopened.contextSession.measure(FIXED).used, shown.used);
    assert.equal(reopened.contextSession.measure(FIXED).basis, 'estimate');
  });
});
