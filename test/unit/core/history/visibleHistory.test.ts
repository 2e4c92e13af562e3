import { strict as assert } from 'assert';
import { normalizeHistory } from '../../../../src/core/history/normalize';
import { VisibleHistory } from '../../../../src/core/history/visibleHistory';
import type { Message } from '../../../../src/core/model/message';
import { prng } from '../../../support/syntheticSession';

let made = 0;
function message(partial: Partial<Message> & Pick<Message, 'role'>): Message {
  made++;
  const kind = partial.role === 'tool' ? 'tool_result' : partial.role === 'system' ? 'note' : partial.role;
  return { id: `v${made}`, kind, content: `message ${made}`, agentVisible: true, userVisible: true, createdAt: made, ...partial } as Message;
}

/** A message of any shape a stored history can hold: calls (some ids repeated), outputs answering earlier, later or unknown calls, hidden messages. */
function randomMessage(random: () => number, callIds: string[]): Message {
  const agentVisible = random() > 0.1;
  const r = random();
  if (r < 0.3) {
    const calls = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
      const id = random() < 0.1 && callIds.length ? callIds[Math.floor(random() * callIds.length)] : `call${made}_${Math.floor(random() * 1e6)}`;
      callIds.push(id);
      return { id, name: 'run', arguments: '{}' };
    });
    return message({ role: 'assistant', toolCalls: calls, agentVisible });
  }
  if (r < 0.7) {
    // Mostly the latest calls, sometimes an old one, a call made later, or none at all.
    const pick = random();
    const toolCallId =
      pick < 0.6 && callIds.length ? callIds[Math.max(0, callIds.length - 1 - Math.floor(random() * 3))] : pick < 0.8 && callIds.length ? callIds[Math.floor(random() * callIds.length)] : `call${made + Math.floor(random() * 20)}_x`;
    return message({ role: 'tool', toolCallId, toolName: 'run', agentVisible });
  }
  return message({ role: random() < 0.8 ? 'user' : 'system', agentVisible });
}

function expected(history: readonly Message[]) {
  const normalized = normalizeHistory(history);
  return { messages: normalized.messages.filter((m) => m.agentVisible), repaired: normalized.inserted.length + normalized.removed.length };
}

function assertSameView(tracker: VisibleHistory, history: readonly Message[], step: string): void {
  const view = tracker.view(history);
  const want = expected(history);
  assert.equal(view.repaired, want.repaired, `${step}: outputs added or removed`);
  assert.equal(view.messages.length, want.messages.length, `${step}: messages sent`);
  want.messages.forEach((m, i) => {
    // Synthetic outputs are made afresh by each normalization: equal, not the same object.
    if (m.kind === 'aborted' && m.meta?.synthetic) assert.deepEqual(view.messages[i], m, `${step}: synthetic output ${i}`);
    else assert.equal(view.messages[i], m, `${step}: message ${i}`);
  });
}

describe('the visible history kept up to date as messages are appended', () => {
  it('sends exactly what a full normalization sends after every append, whatever the history holds', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = prng(seed);
      const callIds: string[] = [];
      const history: Message[] = [];
      const tracker = new VisibleHistory();
      for (let step = 0; step < 60; step++) {
        const burst = 1 + Math.floor(random() * 4);
        for (let k = 0; k < burst; k++) history.push(randomMessage(random, callIds));
        assertSameView(tracker, history, `seed ${seed}, step ${step}`);
      }
    }
  });

  it('fills a call that had a synthetic output in place when its output arrives later', () => {
    const call = { id: 'late', name: 'run', arguments: '{}' };
    const history = [message({ role: 'user' }), message({ role: 'assistant', toolCalls: [call] }), message({ role: 'user' })];
    const tracker = new VisibleHistory();
    assert.equal(tracker.view(history).repaired, 1);
    assert.equal(tracker.view(history).messages[2].kind, 'aborted');
    const output = message({ role: 'tool', toolCallId: 'late' });
    history.push(output);
    assertSameView(tracker, history, 'after the output');
    assert.equal(tracker.view(history).messages[2], output);
    assert.equal(tracker.view(history).repaired, 0);
  });

  it('answers a call with an output recorded before it was made', () => {
    const early = message({ role: 'tool', toolCallId: 'early' });
    const history = [message({ role: 'user' }), early];
    const tracker = new VisibleHistory();
    assert.equal(tracker.view(history).repaired, 1, 'an orphan, removed');
    history.push(message({ role: 'assistant', toolCalls: [{ id: 'early', name: 'run', arguments: '{}' }] }));
    assertSameView(tracker, history, 'after the call');
    assert.equal(tracker.view(history).messages.at(-1), early);
  });

  it('starts over when a message is replaced, pinned, removed or the history is rewritten', () => {
    const random = prng(99);
    const callIds: string[] = [];
    let history: Message[] = Array.from({ length: 80 }, () => randomMessage(random, callIds));
    const tracker = new VisibleHistory();
    assertSameView(tracker, history, 'first');
    // Pinned in place (a new object at the same position).
    history[10] = { ...history[10], pinned: true };
    assertSameView(tracker, history, 'pinned');
    // A message hidden, as compaction hides what a summary replaces.
    history[20] = { ...history[20], agentVisible: !history[20].agentVisible };
    assertSameView(tracker, history, 'hidden');
    // Compaction: a new, shorter array.
    history = [message({ role: 'user', kind: 'summary' } as Partial<Message> & Pick<Message, 'role'>), ...history.slice(40)];
    assertSameView(tracker, history, 'compacted');
    // The last message removed, then others appended.
    history = history.slice(0, -1);
    assertSameView(tracker, history, 'shorter');
    for (let i = 0; i < 10; i++) history.push(randomMessage(random, callIds));
    assertSameView(tracker, history, 'appended after the rewrite');
  });
});
