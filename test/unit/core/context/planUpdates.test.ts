import { strict as assert } from 'assert';
import { ComponentTally } from '../../../../src/core/accounting/componentTally';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { FixedComponents } from '../../../../src/core/accounting/usageBasis';
import { normalizeHistory } from '../../../../src/core/history/normalize';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { requestContent } from '../../../../src/core/context/requestItems';
import { withSettings } from '../../../../src/core/settings';
import { call, scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED: FixedComponents = { system: 1_500, skills: 0, tools: 1_200 };
const settings = withSettings({ contextWindow: 1_000_000, maxOutputTokens: 4_000 });

/** The plan computed from scratch, as it was before planning kept anything from request to request. */
function planFromScratch(session: ContextSession) {
  const count = (m: (typeof session.messages)[number]) => countMessage(m, counter);
  const normalized = normalizeHistory(session.messages);
  const { messages, items } = requestContent({ messages: normalized.messages.filter((m) => m.agentVisible), fixed: FIXED, count });
  const components = { ...new ComponentTally().componentsFor(session.messages, count), ...FIXED };
  return { messages, items, components, repaired: normalized.inserted.length + normalized.removed.length };
}

function assertPlanIsCurrent(session: ContextSession, step: string): void {
  const plan = session.planRequest(FIXED);
  const want = planFromScratch(session);
  assert.deepEqual(
    plan.messages.map((m) => m.id),
    want.messages.map((m) => m.id),
    `${step}: the messages sent`,
  );
  assert.deepEqual(plan.items, want.items, `${step}: the request's items`);
  assert.deepEqual(plan.budget.components, want.components, `${step}: the budget`);
  assert.equal(plan.repaired, want.repaired, `${step}: outputs normalization added or removed`);
}

describe('planning a request from what changed since the last one', function () {
  this.timeout(120_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let session: ContextSession;

  beforeEach(async () => {
    env = await tempStore();
    const { id } = await env.store.createSession({ title: 'plan updates' });
    session = await ContextSession.open({ store: env.store, sessionId: id, settings, counter, contextWindow: 1_000_000, maxOutputTokens: 4_000 });
    await session.appendUser('Fix the failing build.');
    for (const turn of scriptedTurns(30, 3, 1000)) {
      await session.appendAssistant(turn.assistantText, turn.calls.map((c) => c.call));
      for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
      assertPlanIsCurrent(session, `after "${turn.assistantText.slice(0, 20)}"`);
    }
  });
  afterEach(async () => env.dispose());

  it('stays exact when a message is pinned, unpinned, or compaction rewrites the context', async () => {
    const output = session.messages.find((m) => m.role === 'tool')!;
    await session.setPinned(output.id, true);
    assertPlanIsCurrent(session, 'pinned');
    assert.deepEqual(session.planRequest(FIXED).items.find((i) => i.messageId === output.id)?.badges, ['pinned']);
    await session.setPinned(output.id, false);
    assertPlanIsCurrent(session, 'unpinned');
    const compaction = await session.compact({ trigger: 'manual' });
    assert.equal(compaction.status, 'complete');
    assert.ok(compaction.removed.length > 0, 'compaction removed something');
    assertPlanIsCurrent(session, 'compacted');
    await session.appendUser('And now the docs.');
    assertPlanIsCurrent(session, 'appended after compaction');
  });

  it('stays exact while a call waits for its output, when it arrives, and when open calls are aborted', async () => {
    const a = call('run_command', { command: 'npm test' });
    const b = call('read_file', { path: 'a.ts' });
    await session.append(assistantMessage('Running both.', [a, b]));
    assertPlanIsCurrent(session, 'both calls open');
    assert.equal(session.planRequest(FIXED).repaired, 2, 'both answered by synthetic outputs for now');
    await session.recordToolResult(a, 'all green');
    assertPlanIsCurrent(session, 'one answered');
    await session.abortOpenCalls();
    assertPlanIsCurrent(session, 'the other aborted');
    assert.equal(session.planRequest(FIXED).repaired, 0);
    await session.append(userMessage('Thanks.'));
    assertPlanIsCurrent(session, 'next user message');
  });

  it('measures the budget once per planned request and gives the same figures as planning alone', async () => {
    const request = await session.nextRequest({ fixed: FIXED });
    assert.deepEqual(request.plan.budget.components, planFromScratch(session).components);
    assert.deepEqual(request.plan.items, session.planRequest(FIXED).items);
  });

  it("keeps the provider's report as the basis exact as the context changes after it: added, pinned, compacted, reported again", async () => {
    const count = (m: (typeof session.messages)[number]) => countMessage(m, counter);
    let request = await session.nextRequest({ fixed: FIXED });
    let reported = Math.round(request.plan.budget.used * 1.2);
    await session.recordResponse(request, { model: 'claude', reported: { inputTokens: reported } });
    let sent = new Map(request.plan.messages.map((m) => [m.id, count(m)]));
    // The report plus what changed since, by message id, as the conversation components add up to.
    const expectedUsed = () => {
      const now = new Map(session.messages.filter((m) => m.agentVisible).map((m) => [m.id, count(m)]));
      let change = 0;
      for (const [id, tokens] of now) if (!sent.has(id)) change += tokens;
      for (const [id, tokens] of sent) if (!now.has(id)) change -= tokens;
      return reported + change;
    };
    assert.equal(session.measure(FIXED).basis, 'reported');
    assert.equal(session.measure(FIXED).used, expectedUsed(), 'right after the report');
    await session.appendUser('And the tests?');
    assert.equal(session.measure(FIXED).used, expectedUsed(), 'a message added');
    await session.setPinned(session.messages[3].id, true);
    assert.equal(session.measure(FIXED).used, expectedUsed(), 'a message pinned');
    const compaction = await session.compact({ trigger: 'manual' });
    assert.equal(compaction.status, 'complete');
    assert.equal(session.measure(FIXED).used, expectedUsed(), 'compacted');
    request = await session.nextRequest({ fixed: FIXED });
    reported = Math.round(request.plan.budget.used * 0.9);
    await session.recordResponse(request, { model: 'claude', reported: { inputTokens: reported } });
    sent = new Map(request.plan.messages.map((m) => [m.id, count(m)]));
    await session.appendAssistant('Both pass.');
    assert.equal(session.measure(FIXED).used, expectedUsed(), 'reported again, then a message added');
  });
});
