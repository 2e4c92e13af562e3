import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { encodeRequestItems } from '../../../../src/core/model/requestItemsDelta';
import type { PromptSections } from '../../../../src/core/prompt/promptSections';
import { ConversationItems } from '../../../../src/core/context/conversationItems';
import { DYNAMIC_NOTE_ID, requestContent } from '../../../../src/core/context/requestItems';
import { prng } from '../../../support/syntheticSession';

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

  it('keeps the items it reuses exact as messages are replaced, pinned, removed or added, with or without a dynamic part', () => {
    const random = prng(11);
    const reuse = new ConversationItems();
    const dynamic: PromptSections = { system: [], tools: [], dynamic: [{ id: 'note:context', kind: 'note', label: 'Context', text: 'Open file: a.ts', tokens: 5 }] };
    let messages: Message[] = history.slice(0, 60);
    for (let step = 0; step < 120; step++) {
      const r = random();
      if (r < 0.4) messages = [...messages, random() < 0.5 ? userMessage(`More ${step}.`, { createdAt: 20_000 + step }) : assistantMessage(`Done ${step}.`, [], { createdAt: 20_000 + step })];
      else if (r < 0.55) messages = messages.map((m, i) => (i === Math.floor(random() * messages.length) ? { ...m, pinned: !m.pinned } : m));
      else if (r < 0.65) messages = messages.filter((_, i) => i !== Math.floor(random() * messages.length));
      else if (r < 0.75) messages = [userMessage('Summary of the earlier work.', { createdAt: 0 }), ...messages.slice(Math.floor(random() * messages.length))];
      else if (r < 0.8) messages = [...messages, userMessage('A message with the note id, as no session makes one.', { id: DYNAMIC_NOTE_ID, createdAt: 30_000 + step })];
      else if (r < 0.85) messages = messages.filter((m) => m.id !== DYNAMIC_NOTE_ID);
      const sections = random() < 0.5 ? dynamic : undefined;
      const reused = requestContent({ messages, sections, fixed, count, reuse });
      const fresh = requestContent({ messages, sections, fixed, count });
      assert.deepEqual(reused.items, fresh.items, `step ${step}`);
      // What each item stands for, as the request's messages say it (a message with the note's id stands for the note).
      const expected = reused.messages.flatMap((m) => (m.id === DYNAMIC_NOTE_ID && sections ? sections.dynamic.map((d) => `${d.id} ${d.tokens}`) : [`${m.id} ${count(m) - 4}`]));
      assert.deepEqual(reused.items.filter((item) => item.kind !== 'framing' && item.section !== 'system').map((item) => `${item.messageId} ${item.tokens}`), expected, `step ${step}: items`);
      assert.deepEqual(reused.messages, fresh.messages, `step ${step}`);
    }
    // Another count function: nothing counted with the first is kept.
    const double = (m: Message) => 2 * count(m);
    assert.deepEqual(requestContent({ messages, fixed, count: double, reuse }).items, requestContent({ messages, fixed, count: double }).items);
  });
});

describe('the prompt item a record gives only as a total', () => {
  it('says in words what its tokens are, with the figure', () => {
    const items = requestContent({ messages: [userMessage('Hi.', { createdAt: 1 })], fixed: { system: 1_200, skills: 0, tools: 3_000 }, count }).items;
    const prompt = items.find((i) => i.messageId === 'system:prompt');
    assert.ok(prompt);
    assert.equal(prompt.tokens, 4_200);
    assert.equal(prompt.preview, '4,200 tokens of instructions and tool definitions, recorded as a total rather than part by part');
  });
});
