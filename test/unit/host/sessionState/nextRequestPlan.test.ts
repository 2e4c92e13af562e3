import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { assistantMessage } from '../../../../src/core/model/factories';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { buildInspectorState } from '../../../../src/host/inspector/inspectorState';
import { resumedSession } from '../../../support/sessionStates';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 700, skills: 0, tools: 300 };

/** The inspector plans the next request once per change of the session, not on each of its refreshes, and shows every change. */
describe('the session state plans the next request once per change of its working context', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  afterEach(() => env.dispose());

  async function opened() {
    env = await tempStore('tally-current-plan-');
    const info = await env.store.createSession({ title: 'plan' });
    const contextSession = await ContextSession.open({ store: env.store, sessionId: info.id, counter, settings: withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000 }) });
    let plans = 0;
    const planRequest = contextSession.planRequest.bind(contextSession);
    contextSession.planRequest = (...args: Parameters<typeof planRequest>) => (plans++, planRequest(...args));
    const session = await resumedSession(env.store, info, contextSession);
    return { session, contextSession, plans: () => plans };
  }

  it('twenty refreshes with nothing changed plan once; an appended message and a pin each plan once more and show; the figures follow each report', async () => {
    const { session, contextSession, plans } = await opened();
    await contextSession.appendUser('first question');
    const listed = buildInspectorState(session).current.length;
    for (let refresh = 0; refresh < 19; refresh++) assert.equal(buildInspectorState(session).current.length, listed);
    assert.equal(plans(), 1, 'twenty refreshes, one plan');

    const answer = (await contextSession.append(assistantMessage('an answer')))[0];
    for (let refresh = 0; refresh < 5; refresh++) assert.equal(buildInspectorState(session).current.length, listed + 1, 'the appended message is listed');
    assert.equal(plans(), 2);

    await contextSession.setPinned(answer.id, true);
    for (let refresh = 0; refresh < 5; refresh++) assert.equal(buildInspectorState(session).current.find((i) => i.messageId === answer.id)?.badges.includes('pinned'), true, 'the pin shows');
    assert.equal(plans(), 3);

    const before = buildInspectorState(session).figures;
    await contextSession.recordResponse(await contextSession.nextRequest({ fixed: FIXED }), { model: 'gpt-4o', reported: { inputTokens: 1_500, outputTokens: 10 } });
    const after = buildInspectorState(session);
    assert.notDeepEqual(after.figures, before, 'the new prompt and the report move the figures');
    assert.deepEqual(after.figures, buildInspectorState(session).figures);
    const fresh = contextSession.planRequest();
    assert.deepEqual(after.current, fresh.items, 'what is shown is what a fresh plan gives');
    assert.equal(after.figures?.used, fresh.budget.used, 'the figure shown is a fresh plan\u2019s');
  });

  it('a compaction that replaces the working context is shown at the next refresh', async () => {
    const { session, contextSession } = await opened();
    for (let n = 0; n < 6; n++) {
      await contextSession.appendUser(`question ${n} ${'words '.repeat(200)}`);
      await contextSession.append(assistantMessage(`answer ${n} ${'more '.repeat(200)}`));
    }
    const shown = buildInspectorState(session).current.length;
    const result = await contextSession.compact({ trigger: 'manual' });
    assert.equal(result.status, 'complete', JSON.stringify(result));
    const now = buildInspectorState(session).current;
    assert.notEqual(now.length, shown, 'the compacted context is listed, not the one before');
    assert.deepEqual(now, contextSession.planRequest().items);
  });
});
