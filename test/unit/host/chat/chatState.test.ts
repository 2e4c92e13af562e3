import * as assert from 'assert';
import type { AgentEvent } from '../../../../src/core/agent/events';
import type { Message } from '../../../../src/core/model/message';
import { buildChatState } from '../../../../src/host/chat/chatState';
import { TurnTracker } from '../../../../src/host/session/turnTracker';
import { compaction } from '../../../webview/fixtures';

/**
 * The chat state as the chat view builds it ~100 ms after the last change, from what
 * SessionController's TurnTracker holds at that moment. A failed turn emits `error` and then
 * `turn_end` within a microtask, so by the time the view refreshes the turn is over.
 */

const user: Message = { id: 'u1', role: 'user', kind: 'user', content: 'Fix the failing test', agentVisible: true, userVisible: true, createdAt: 1 };

function run(tracker: TurnTracker, events: AgentEvent[]): void {
  for (const event of events) tracker.apply(event);
}

/** What the chat view sends after the turn's events have all arrived. */
function stateAfter(tracker: TurnTracker, transcript: Message[] = [user]) {
  return buildChatState({ transcript, compactions: [], sessions: [], live: tracker.live, ended: tracker.ended });
}

function failedTurn(message: string, kind: string): AgentEvent[] {
  return [
    { type: 'turn_start', userMessageId: 'u1' },
    { type: 'request_start', requestIndex: 0, usedTokens: 100, effectiveWindow: 1000, percent: 0.1 },
    { type: 'error', message, kind },
    { type: 'turn_end', stopReason: 'error' },
  ];
}

describe('chat state after a failed turn', () => {
  for (const [message, kind] of [
    ['rate limited (429) — retried 3 times', 'rate_limited'],
    ['the request timed out', 'timeout'],
    ['Incorrect API key provided. (401)', 'auth'],
  ]) {
    it(`keeps the provider's error (${kind}) as an error entry after the turn has ended`, () => {
      const tracker = new TurnTracker();
      run(tracker, failedTurn(message, kind));
      assert.strictEqual(tracker.live, undefined, 'the turn is over when the view refreshes');
      const { entries } = stateAfter(tracker);
      assert.deepStrictEqual(entries.map((e) => e.kind), ['user', 'notice']);
      const last = entries[entries.length - 1];
      assert.ok(last.kind === 'notice');
      assert.strictEqual(last.level, 'error');
      assert.strictEqual(last.text, message);
    });
  }

  it('keeps showing the error on every later refresh until the next turn starts, then drops it', () => {
    const tracker = new TurnTracker();
    run(tracker, failedTurn('the request timed out', 'timeout'));
    for (let refresh = 0; refresh < 3; refresh++) assert.strictEqual(stateAfter(tracker).entries.filter((e) => e.kind === 'notice').length, 1);
    tracker.apply({ type: 'turn_start', userMessageId: 'u2' });
    const next = stateAfter(tracker).entries;
    assert.deepStrictEqual(next.filter((e) => e.kind === 'notice'), [], 'a new turn starts clean');
  });

  it('shows the error while the turn is still live, too', () => {
    const tracker = new TurnTracker();
    run(tracker, failedTurn('the request timed out', 'timeout').slice(0, 3));
    const notices = stateAfter(tracker).entries.filter((e) => e.kind === 'notice');
    assert.deepStrictEqual(notices.map((n) => n.kind === 'notice' && [n.level, n.text]), [['error', 'the request timed out']]);
  });

  it('does not keep retry warnings after a turn that succeeded', () => {
    const tracker = new TurnTracker();
    run(tracker, [
      { type: 'turn_start', userMessageId: 'u1' },
      { type: 'retry', attempt: 1, delayMs: 2000, reason: 'connection reset' },
    ]);
    assert.strictEqual(stateAfter(tracker).entries.filter((e) => e.kind === 'notice' && e.level === 'warning').length, 1, 'the retry shows while it happens');
    tracker.apply({ type: 'turn_end', stopReason: 'end_turn' });
    assert.deepStrictEqual(stateAfter(tracker).entries.map((e) => e.kind), ['user']);
  });

  it('keeps a "stopped after N requests" notice after the turn, as info', () => {
    const tracker = new TurnTracker();
    run(tracker, [
      { type: 'turn_start', userMessageId: 'u1' },
      { type: 'notice', message: 'Stopped after 200 requests in one turn; send a message to continue.' },
      { type: 'turn_end', stopReason: 'max_steps' },
    ]);
    const last = stateAfter(tracker).entries.at(-1)!;
    assert.ok(last.kind === 'notice' && last.level === 'info' && /Stopped after 200 requests/.test(last.text));
  });

  it('forgets the error when the session changes', () => {
    const tracker = new TurnTracker();
    run(tracker, failedTurn('the request timed out', 'timeout'));
    tracker.reset();
    assert.deepStrictEqual(stateAfter(tracker).entries.map((e) => e.kind), ['user']);
  });

  it('shows an error reported outside a turn', () => {
    const tracker = new TurnTracker();
    tracker.apply({ type: 'error', message: 'the context is full and could not be compacted', kind: 'blocked' });
    const last = stateAfter(tracker).entries.at(-1)!;
    assert.ok(last.kind === 'notice' && last.level === 'error');
  });

  it('gives the kept error an id that cannot collide with transcript entries', () => {
    const tracker = new TurnTracker();
    run(tracker, failedTurn('boom', 'server'));
    const ids = stateAfter(tracker).entries.map((e) => e.id);
    assert.strictEqual(new Set(ids).size, ids.length);
  });
});

describe('a large compaction in the chat', () => {
  it('carries how many items it removed, not the items: a compaction of 5,000 keeps its notice small', () => {
    const removed = Array.from({ length: 5_000 }, (_, i) => ({ ...compaction.removed[0], messageId: `m-${i}`, preview: `result ${i} `.repeat(20) }));
    const record = { ...compaction, startedAt: 2, removed };
    const state = buildChatState({ transcript: [user], compactions: [record], sessions: [] });
    const notice = state.entries.find((e) => e.kind === 'compaction');
    assert.ok(notice && notice.kind === 'compaction');
    assert.equal(notice.record.removedCount, 5_000);
    assert.equal('removed' in notice.record, false);
    assert.equal(notice.record.tokensAfter, compaction.tokensAfter);
    assert.ok(JSON.stringify(notice).length < 2_000, `${JSON.stringify(notice).length} characters`);
  });
});
