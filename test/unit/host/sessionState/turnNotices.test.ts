import * as assert from 'assert';
import type { AgentEvent } from '../../../../src/core/agent/events';
import type { Message } from '../../../../src/core/model/message';
import { compaction } from '../../../webview/fixtures';
import { agent, applyAll, HeldChat, stateOf } from '../../../support/sessionStates';

/**
 * What a turn leaves in the chat: its notices while it runs, and its error (with Retry) after it
 * ended, until the next turn starts or the conversation goes back. A failed turn reports `error`
 * and then `turn_end` within a microtask: the state keeps the error past the turn's end.
 */

const user: Message = { id: 'u1', role: 'user', kind: 'user', content: 'Fix the failing test', agentVisible: true, userVisible: true, createdAt: 1 };

function failedTurn(message: string, kind: string): AgentEvent[] {
  return [
    { type: 'turn_start', userMessageId: 'u1' },
    { type: 'request_start', requestIndex: 0, usedTokens: 100, effectiveWindow: 1000, percent: 0.1 },
    { type: 'error', message, kind },
    { type: 'turn_end', stopReason: 'error' },
  ];
}

/** A session with the user's message, these events applied, and the chat as the webview holds it. */
function after(events: AgentEvent[], model = true) {
  const state = stateOf([user], {}, model ? { model: { id: 'm', label: 'Model' } } : {});
  const chat = new HeldChat(state);
  applyAll(state, events.map(agent));
  assert.deepEqual(chat.entries(), state.chatEntries(), 'the webview holds what a whole state would carry');
  return { state, chat };
}

describe('what a turn leaves in the chat', () => {
  for (const [message, kind] of [
    ['rate limited (429) — retried 3 times', 'rate_limited'],
    ['the request timed out', 'timeout'],
    ['Incorrect API key provided. (401)', 'auth'],
  ]) {
    it(`keeps the provider's error (${kind}) as an error entry after the turn has ended, with Retry`, () => {
      const { state, chat } = after(failedTurn(message, kind));
      assert.strictEqual(state.live, undefined, 'the turn is over');
      const entries = chat.entries();
      assert.deepStrictEqual(entries.map((e) => e.kind), ['user', 'notice']);
      const last = entries[entries.length - 1];
      assert.ok(last.kind === 'notice');
      assert.strictEqual(last.level, 'error');
      assert.strictEqual(last.text, message);
      assert.strictEqual(last.action, 'retry');
      assert.strictEqual(chat.header.busy, false);
    });
  }

  it('offers Retry only when the session has a model to send it again', () => {
    const { chat } = after(failedTurn('boom', 'server'), false);
    const last = chat.entries().at(-1)!;
    assert.ok(last.kind === 'notice' && last.action === undefined);
  });

  it('keeps showing the error until the next turn starts, then drops it', () => {
    const { state, chat } = after(failedTurn('the request timed out', 'timeout'));
    state.apply(agent({ type: 'turn_start', userMessageId: 'u2' }));
    assert.deepStrictEqual(chat.entries().filter((e) => e.kind === 'notice'), [], 'a new turn starts clean');
    assert.strictEqual(chat.header.busy, true);
  });

  it('shows the error while the turn is still live, too', () => {
    const { chat } = after(failedTurn('the request timed out', 'timeout').slice(0, 3));
    const notices = chat.entries().filter((e) => e.kind === 'notice');
    assert.deepStrictEqual(notices.map((n) => n.kind === 'notice' && [n.level, n.text]), [['error', 'the request timed out']]);
  });

  it('does not keep retry warnings after a turn that succeeded', () => {
    const { state, chat } = after([
      { type: 'turn_start', userMessageId: 'u1' },
      { type: 'retry', attempt: 1, delayMs: 2000, reason: 'connection reset' },
    ]);
    assert.strictEqual(chat.entries().filter((e) => e.kind === 'notice' && e.level === 'warning').length, 1, 'the retry shows while it happens');
    state.apply(agent({ type: 'turn_end', stopReason: 'end_turn' }));
    assert.deepStrictEqual(chat.entries().map((e) => e.kind), ['user']);
  });

  it('keeps a "stopped after N requests" notice after the turn, as info', () => {
    const { chat } = after([
      { type: 'turn_start', userMessageId: 'u1' },
      { type: 'notice', message: 'Stopped after 200 requests in one turn; send a message to continue.' },
      { type: 'turn_end', stopReason: 'max_steps' },
    ]);
    const last = chat.entries().at(-1)!;
    assert.ok(last.kind === 'notice' && last.level === 'info' && /Stopped after 200 requests/.test(last.text));
  });

  it('forgets the error when the conversation goes back (a rewind)', () => {
    const { state, chat } = after(failedTurn('the request timed out', 'timeout'));
    state.apply({ kind: 'turnForgotten' });
    assert.deepStrictEqual(chat.entries().map((e) => e.kind), ['user']);
    assert.strictEqual(state.canRetry, false);
  });

  it('shows an error reported outside a turn', () => {
    const { chat } = after([{ type: 'error', message: 'the context is full and could not be compacted', kind: 'blocked' }]);
    const last = chat.entries().at(-1)!;
    assert.ok(last.kind === 'notice' && last.level === 'error');
  });

  it('gives the kept error an id that cannot collide with transcript entries', () => {
    const { chat } = after(failedTurn('boom', 'server'));
    const ids = chat.entries().map((e) => e.id);
    assert.strictEqual(new Set(ids).size, ids.length);
  });
});

describe('a large compaction in the chat', () => {
  it('carries how many items it removed, not the items: a compaction of 5,000 keeps its notice small', () => {
    const removed = Array.from({ length: 5_000 }, (_, i) => ({ ...compaction.removed[0], messageId: `m-${i}`, preview: `result ${i} `.repeat(20) }));
    const record = { ...compaction, startedAt: 2, removed };
    const notice = stateOf([user], { compactions: [record] }).chatEntries().find((e) => e.kind === 'compaction');
    assert.ok(notice && notice.kind === 'compaction');
    assert.equal(notice.record.removedCount, 5_000);
    assert.equal('removed' in notice.record, false);
    assert.equal(notice.record.tokensAfter, compaction.tokensAfter);
    assert.ok(JSON.stringify(notice).length < 2_000, `${JSON.stringify(notice).length} characters`);
  });
});
