/**
 * A session's messages are never changed in place: each is marked settled as it enters the working
 * context (appended, a tool's result, an aborted output, resumed, compacted, pinned), so a request
 * body can trust a message it already sent while it is the same object.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { Message } from '../../../../src/core/model/message';
import { isSettled } from '../../../../src/core/model/settledMessages';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');

function open(store: Awaited<ReturnType<typeof tempStore>>['store'], sessionId: string) {
  return ContextSession.open({ store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter });
}

function assertAllSettled(messages: readonly Message[], when: string) {
  const open = messages.filter((m) => !isSettled(m));
  assert.equal(open.length, 0, `${when}: ${open.length} of ${messages.length} messages are not settled`);
}

describe('a session\'s messages', function () {
  this.timeout(120_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  afterEach(async () => env?.dispose());

  it('are settled once in the working context: appended, resumed, compacted and pinned', async () => {
    env = await tempStore();
    const sessionId = (await env.store.createSession({ title: 'test' })).id;
    const session = await open(env.store, sessionId);
    let n = 0;
    await session.append({ id: `m${++n}`, role: 'user', kind: 'user', content: 'Refactor the logger.', agentVisible: true, userVisible: true, createdAt: 0 });
    for (const turn of scriptedTurns(20, 3, 1000)) {
      await session.append({ id: `m${++n}`, role: 'assistant', kind: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call), agentVisible: true, userVisible: true, createdAt: 0 });
      for (const c of turn.calls.slice(1)) await session.recordToolResult(c.call, c.output, { isError: c.isError });
    }
    // The first call of the last turn got no result: the next user message closes it with an aborted output.
    await session.appendUser('Now add a test.');
    assertAllSettled(session.messages, 'appended');
    const last = session.messages[session.messages.length - 1];
    assert.equal(JSON.stringify(Object.keys(last)).includes('settled'), false, 'the mark is not part of the message data');
    assert.equal(isSettled({ ...last }), false, 'a copy (a changed message) is not settled');

    assert.equal(await session.setPinned(session.messages[3].id, true), true);
    assertAllSettled(session.messages, 'pinned');
    assert.equal((await session.compact({ trigger: 'manual' })).status, 'complete');
    assertAllSettled(session.messages, 'compacted');
    await env.store.flush();

    const resumed = await open(env.store, sessionId);
    assert.ok(resumed.messages.length > 0);
    assertAllSettled(resumed.messages, 'resumed');
  });
});
