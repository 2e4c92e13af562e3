import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../src/core/accounting/tokenizer';
import { countMessage } from '../../../src/core/accounting/messageTokens';
import { assistantMessage, toolResultMessage, userMessage } from '../../../src/core/model/factories';
import type { Message } from '../../../src/core/model/message';
import { encodeRequestItems } from '../../../src/core/model/requestItemsDelta';
import { requestContent } from '../../../src/core/session/requestItems';

const counter = getTokenCounter('o200k_base');
const count = (m: Message) => countMessage(m, counter);
const fixed = { system: 0, skills: 0, tools: 0 };

describe('request items of a long session', () => {
  const history: Message[] = [userMessage('Fix the build.', { createdAt: 1 })];
  for (let i = 0; i < 200; i++) {
    const call = { id: `c${i}`, name: 'run_command', arguments: `{"command":"npm test -- ${i}"}` };
    history.push(assistantMessage(`Step ${i}.`, [call], { createdAt: 2 + i * 2 }), toolResultMessage(call, `ok ${i}\n`.repeat(3), { createdAt: 3 + i * 2 }));
  }

  it("reuses an unchanged message's item from request to request, so the stored change holds only what is new", () => {
    const first = requestContent({ messages: history, fixed, count }).items;
    const next = [...history, assistantMessage('All green.', [], { createdAt: 10_000 })];
    const second = requestContent({ messages: next, fixed, count }).items;
    for (let i = 0; i < history.length; i++) assert.equal(second[i], first[i], `item ${i} is the same object`);
    const change = encodeRequestItems(second, { id: 'r1', items: first });
    assert.ok('base' in change, 'stored as a change of the previous request');
    if ('base' in change) {
      // The new message and the message framing (its count grew); nothing else.
      assert.deepEqual(change.added.map(([, item]) => item.kind), ['assistant', 'framing']);
      assert.deepEqual(change.removed, ['framing:messages']);
    }
  });

  it('gives a pinned message a new item with the pinned badge', () => {
    const first = requestContent({ messages: history, fixed, count }).items;
    const pinned = history.map((m, i) => (i === 1 ? { ...m, pinned: true } : m));
    const second = requestContent({ messages: pinned, fixed, count }).items;
    assert.notEqual(second[1], first[1]);
    assert.deepEqual(second[1].badges, ['pinned']);
    assert.equal(second[2], first[2]);
  });
});
