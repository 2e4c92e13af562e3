import { strict as assert } from 'assert';
import { findCallGroups, safeCutBefore } from '../../../../src/core/history/callGroups';
import { normalizeHistory, validateHistory } from '../../../../src/core/history/normalize';
import { SessionCallIds } from '../../../../src/core/history/uniqueCallIds';
import type { Message } from '../../../../src/core/model/message';

let n = 0;
const user = (content: string): Message => ({ id: `u${++n}`, role: 'user', kind: 'user', content, agentVisible: true, userVisible: true, createdAt: n });
const asst = (...calls: string[]): Message => ({ id: `a${++n}`, role: 'assistant', kind: 'assistant', content: 'working', toolCalls: calls.map((id) => ({ id, name: 'run_command', arguments: '{}' })), agentVisible: true, userVisible: true, createdAt: n });
const out = (callId: string, extra: Partial<Message> = {}): Message => ({ id: `o${++n}`, role: 'tool', kind: 'tool_result', content: `result of ${callId}`, toolCallId: callId, toolName: 'run_command', agentVisible: true, userVisible: true, createdAt: n, ...extra });

describe('history normalization', () => {
  it('inserts an "aborted" output right after a call that has none', () => {
    const history = [user('go'), asst('c1'), user('next')];
    const result = normalizeHistory(history);
    assert.equal(result.inserted.length, 1);
    assert.deepEqual(result.messages.map((m) => m.kind), ['user', 'assistant', 'aborted', 'user']);
    assert.equal(result.messages[2].toolCallId, 'c1');
    assert.deepEqual(validateHistory(result.messages), []);
    assert.notDeepEqual(validateHistory(history), [], 'the input was invalid');
  });

  it('gives every synthetic "aborted" output its own id when the provider repeats call ids every turn', () => {
    const ids = new SessionCallIds();
    const history: Message[] = [user('go')];
    for (let turn = 0; turn < 40; turn++) {
      // a local server sends call_0 and call_1 every turn; none of these calls ever gets an output
      const calls = ['call_0', 'call_1'].map((id) => ids.claim({ id, name: 'run_command', arguments: '{}' }, history));
      history.push({ ...asst(), toolCalls: calls });
    }
    const result = normalizeHistory(history);
    assert.equal(result.inserted.length, 80);
    const messageIds = result.messages.map((m) => m.id);
    assert.equal(new Set(messageIds).size, messageIds.length, 'no two messages share an id');
    assert.deepEqual(validateHistory(result.messages), []);
    assert.equal(result.inserted[0].content, '[aborted: this tool call did not return a result]');
  });

  it('removes an orphan output whose call does not exist', () => {
    const orphan = out('ghost');
    const result = normalizeHistory([user('go'), orphan, asst('c1'), out('c1')]);
    assert.deepEqual(result.removed, [orphan]);
    assert.deepEqual(validateHistory(result.messages), []);
  });

  it('handles mixed problems, parallel calls, out-of-order and duplicate outputs', () => {
    const dup = out('c2');
    const history = [user('go'), asst('c1', 'c2', 'c3'), out('c2'), user('interjection'), out('c1'), dup, out('zzz'), asst('c4')];
    const result = normalizeHistory(history);
    assert.deepEqual(result.messages.map((m) => m.toolCallId ?? m.kind), ['user', 'assistant', 'c1', 'c2', 'c3', 'user', 'assistant', 'c4']);
    assert.equal(result.inserted.map((m) => m.toolCallId).join(), 'c3,c4');
    assert.equal(result.removed.length, 2, 'the duplicate and the orphan');
    assert.deepEqual(validateHistory(result.messages), []);
    assert.equal(history.length, 8, 'the input is not mutated');
  });

  it('ignores hidden messages when pairing', () => {
    const hidden = { ...out('c1'), agentVisible: false };
    const result = normalizeHistory([user('go'), asst('c1'), hidden]);
    assert.equal(result.inserted.length, 1, 'a hidden output does not count as sent');
    assert.deepEqual(validateHistory(result.messages), []);
  });

  it('never cuts inside a call group', () => {
    const history = [user('go'), asst('c1', 'c2'), out('c1'), out('c2'), user('next')];
    assert.deepEqual(findCallGroups(history), [{ start: 1, end: 4 }]);
    assert.equal(safeCutBefore(history, 3), 1);
    assert.equal(safeCutBefore(history, 4), 4);
  });
});
