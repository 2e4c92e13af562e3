import * as assert from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { agent, HeldChat, stateOf } from '../../../support/sessionStates';

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
    const entry = stateOf([user, answer]).chatEntries().find((e) => e.id === 'a1');
    assert.deepStrictEqual(entry?.kind === 'assistant' && entry.thinking, { text: 'Call the tool first.', redacted: 1, tokens: 7 });
  });

  it('streams thinking onto the streaming entry as deltas, ends it when the answer starts, drops it when the message is recorded; a Continue notice keeps its action after the turn', () => {
    const state = stateOf([user]);
    const chat = new HeldChat(state);
    state.apply(agent({ type: 'turn_start', userMessageId: 'u1' }));
    const deltas = [state.apply(agent({ type: 'reasoning_delta', text: 'Call the ' })), state.apply(agent({ type: 'reasoning_delta', text: 'tool first.' }))];
    assert.deepStrictEqual(deltas.map((p) => p.chat.streamed), [{ entryId: 'streaming', text: 'Call the ', thinking: true }, { entryId: 'streaming', text: 'tool first.', thinking: true }], 'thinking travels as deltas, never whole');
    let live = chat.entries().find((e) => e.id === 'streaming');
    assert.deepStrictEqual(live?.kind === 'assistant' && live.thinking, { text: 'Call the tool first.', redacted: 0, streaming: true });
    state.apply(agent({ type: 'text_delta', text: 'Version' }));
    live = chat.entries().find((e) => e.id === 'streaming');
    assert.deepStrictEqual(live?.kind === 'assistant' && [live.text, live.thinking?.streaming], ['Version', false], 'the answer started: the thinking is over');
    assert.deepStrictEqual(chat.entries(), state.chatEntries());
    state.apply({ kind: 'change', change: { type: 'messages', appended: [answer], replaced: [] } });
    assert.strictEqual(chat.entries().find((e) => e.id === 'streaming'), undefined, 'the stored reply replaces what streamed, in the same patch');
    state.apply(agent({ type: 'assistant_message', message: answer }));
    state.apply(agent({ type: 'notice', message: 'The answer was cut at the output limit.', action: 'continue' }));
    state.apply(agent({ type: 'turn_end', stopReason: 'max_tokens' }));
    const ended = chat.entries().filter((e) => e.kind === 'notice');
    assert.deepStrictEqual(ended.map((e) => e.kind === 'notice' && e.action), ['continue']);
  });
});
