import * as assert from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { buildChatState } from '../../../../src/host/chat/chatState';
import { TurnTracker } from '../../../../src/host/session/turnTracker';

const user: Message = { id: 'u1', role: 'user', kind: 'user', content: 'What version is it?', agentVisible: true, userVisible: true, createdAt: 1 };
const answer: Message = {
  id: 'a1',
  role: 'assistant',
  kind: 'assistant',
  content: 'Version 0.32a0.',
  agentVisible: true,
  userVisible: true,
  createdAt: 2,
  reasoning: [
    { format: 'anthropic', text: 'Call the tool first.', signature: 'sig' },
    { format: 'anthropic', text: '', redactedData: 'opaque' },
  ],
  meta: { reasoningTokens: 7 },
};

describe('chat entries for thinking', () => {
  it('builds the thinking of a stored assistant message from its reasoning blocks, with tokens and redacted count', () => {
    const state = buildChatState({ transcript: [user, answer], compactions: [], sessions: [] });
    const entry = state.entries.find((e) => e.id === 'a1');
    assert.deepStrictEqual(entry?.kind === 'assistant' && entry.thinking, { text: 'Call the tool first.', redacted: 1, tokens: 7 });
  });

  it('streams thinking into the live entry, then drops it when the message is recorded; a Continue notice keeps its action after the turn', () => {
    const tracker = new TurnTracker();
    tracker.apply({ type: 'turn_start', userMessageId: 'u1' });
    tracker.apply({ type: 'reasoning_delta', text: 'Call the ' });
    tracker.apply({ type: 'reasoning_delta', text: 'tool first.' });
    let live = buildChatState({ transcript: [user], compactions: [], sessions: [], live: tracker.live }).entries.find((e) => e.id === 'streaming');
    assert.deepStrictEqual(live?.kind === 'assistant' && live.thinking, { text: 'Call the tool first.', redacted: 0, streaming: true });
    assert.strictEqual(tracker.live?.events.length, 1, 'thinking deltas are not kept as events');
    tracker.apply({ type: 'assistant_message', message: answer });
    live = buildChatState({ transcript: [user, answer], compactions: [], sessions: [], live: tracker.live }).entries.find((e) => e.id === 'streaming');
    assert.strictEqual(live, undefined);
    tracker.apply({ type: 'notice', message: 'The answer was cut at the output limit.', action: 'continue' });
    tracker.apply({ type: 'turn_end', stopReason: 'max_tokens' });
    const ended = buildChatState({ transcript: [user, answer], compactions: [], sessions: [], ended: tracker.ended }).entries.filter((e) => e.kind === 'notice');
    assert.deepStrictEqual(ended.map((e) => e.kind === 'notice' && e.action), ['continue']);
  });
});
