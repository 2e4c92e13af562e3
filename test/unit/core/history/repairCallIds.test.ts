import { strict as assert } from 'assert';
import { repairDuplicateCallIds } from '../../../../src/core/history/repairCallIds';
import { normalizeHistory, validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';

const base = { agentVisible: true, userVisible: true, createdAt: 0 } as const;
const call = (id: string, text: string) => ({ id, name: 'echo', arguments: JSON.stringify({ text }) });
const assistant = (id: string, ...calls: Array<{ id: string; name: string; arguments: string }>): Message => ({ ...base, id, role: 'assistant', kind: 'assistant', content: '', toolCalls: calls });
const output = (id: string, callId: string, content: string): Message => ({ ...base, id, role: 'tool', kind: 'tool_result', content, toolCallId: callId });

describe('repairing repeated tool-call ids', () => {
  it('renames repeats within a response and across responses, and empty ids, so each output stays with the call it followed', () => {
    const history: Message[] = [
      assistant('a1', call('call_0', 'one'), call('call_0', 'two')),
      output('t1', 'call_0', 'out one'),
      output('t2', 'call_0', 'out two'),
      assistant('a2', call('call_0', 'three'), call('', 'four')),
      output('t3', 'call_0', 'out three'),
      output('t4', '', 'out four'),
    ];
    const before = JSON.stringify(history);
    const repair = repairDuplicateCallIds(history);
    assert.equal(JSON.stringify(history), before, 'the input is untouched');
    assert.deepEqual(repair.renamed.map((r) => `${r.messageId}:${r.from}→${r.to}`), ['a1:call_0→call_0_2', 'a2:call_0→call_0_3', 'a2:→call_2']);
    const normalized = normalizeHistory(repair.messages).messages;
    assert.deepEqual(validateHistory(normalized), []);
    assert.deepEqual(normalized.filter((m) => m.role === 'tool').map((m) => m.content), ['out one', 'out two', 'out three', 'out four']);
    assert.deepEqual(repairDuplicateCallIds(history).messages, repair.messages, 'the same history repairs to the same ids');
    assert.deepEqual(repairDuplicateCallIds(repair.messages).renamed, [], 'a repaired history needs no repair');
  });
});
