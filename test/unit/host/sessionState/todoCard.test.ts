import { strict as assert } from 'assert';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { renderTodos, UPDATE_TODOS, type TodoItem } from '../../../../src/core/plan/todoList';
import type { ChatEntry } from '../../../../src/protocol/chat';
import { HeldChat, stateOf } from '../../../support/sessionStates';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });
let t = 0;

function update(items: TodoItem[], n: number, isError = false): Message[] {
  const call = { id: `todo${n}`, name: UPDATE_TODOS, arguments: JSON.stringify({ todos: items }) };
  return [
    visible(assistantMessage('Planning.', [call], { id: `a${n}`, createdAt: ++t })),
    visible(toolResultMessage(call, isError ? 'todos[0].status must be one of pending, in_progress, done. The todo list was not changed.' : renderTodos(items), { id: `r${n}`, createdAt: ++t, isError })),
  ];
}

const cards = (entries: readonly ChatEntry[]) => entries.filter((e) => e.kind === 'todos');

describe('the chat\'s todo card', () => {
  it('is one card, updated in place by each update_todos call, and what a fresh fold gives', () => {
    const state = stateOf([visible(userMessage('Fix the parser.', { id: 'u0', createdAt: ++t }))]);
    const chat = new HeldChat(state);
    assert.equal(cards(chat.entries()).length, 0, 'no list, no card');
    const transcript: Message[] = [];
    const lists: TodoItem[][] = [
      [{ text: 'Read the parser', status: 'in_progress' }, { text: 'Fix it', status: 'pending' }],
      [{ text: 'Read the parser', status: 'done' }, { text: 'Fix it', status: 'in_progress' }, { text: 'Test it', status: 'pending' }],
      [{ text: 'Read the parser', status: 'done' }, { text: 'Fix it', status: 'done' }, { text: 'Test it', status: 'done' }],
    ];
    lists.forEach((items, n) => {
      const before = chat.patches.length;
      const written = update(items, n);
      transcript.push(...written);
      state.apply({ kind: 'change', change: { type: 'messages', appended: written, replaced: [] } });
      const shown = cards(chat.entries());
      assert.equal(shown.length, 1, `update ${n}: one card`);
      assert.deepEqual(shown[0], { kind: 'todos', id: 'current', items, open: items.filter((i) => i.status !== 'done').length });
      const sent = chat.patches.slice(before).flatMap((p) => p.chat.entries?.upserts ?? []).filter((e) => e.kind === 'todos');
      assert.equal(sent.length, 1, `update ${n}: the card travels once`);
      assert.equal(chat.entries()[chat.entries().length - 1].kind, 'todos', 'the card is last, next to the composer');
    });
    const fresh = stateOf([visible(userMessage('Fix the parser.', { id: 'u0', createdAt: 1 })), ...transcript]).chatEntries();
    assert.deepEqual(cards(fresh), cards(chat.entries()), 'a session opened again shows the same card');
  });

  it('a refused update leaves the card as it was and sends nothing', () => {
    const items: TodoItem[] = [{ text: 'Only step', status: 'pending' }];
    const state = stateOf([visible(userMessage('Go.', { id: 'u1', createdAt: ++t })), ...update(items, 10)]);
    const chat = new HeldChat(state);
    const before = chat.patches.length;
    state.apply({ kind: 'change', change: { type: 'messages', appended: update([], 11, true), replaced: [] } });
    assert.deepEqual(cards(chat.entries())[0], { kind: 'todos', id: 'current', items, open: 1 });
    assert.equal(chat.patches.slice(before).flatMap((p) => p.chat.entries?.upserts ?? []).filter((e) => e.kind === 'todos').length, 0);
  });
});
