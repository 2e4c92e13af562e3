import type { ChatEntry, ChatTodoItem } from '../../src/protocol/chat';
import { h } from '../ui/dom';

const MARKS: Record<ChatTodoItem['status'], { mark: string; label: string }> = {
  pending: { mark: '○', label: 'pending' },
  in_progress: { mark: '◐', label: 'in progress' },
  done: { mark: '✓', label: 'done' },
};

/** The agent's todo list: one card the chat keeps next to the composer and redraws as the list changes. */
export function renderTodoCard(entry: Extract<ChatEntry, { kind: 'todos' }>): HTMLElement {
  const total = entry.items.length;
  return h('section', { class: 'entry todo-card', attrs: { 'data-entry-id': entry.id, 'data-kind': 'todos', 'aria-label': 'Todo list' } }, [
    h('div', { class: 'todo-head' }, [
      h('span', { class: 'todo-title', text: 'Todo list' }),
      h('span', { class: 'todo-count', attrs: { 'data-todo-open': entry.open }, text: entry.open ? `${entry.open} open of ${total}` : `all ${total} done` }),
    ]),
    h('ol', { class: 'todo-items' }, entry.items.map((item) =>
      h('li', { class: `todo-item todo-${item.status.replace('_', '-')}`, attrs: { 'data-todo-status': item.status } }, [
        h('span', { class: 'todo-mark', attrs: { 'aria-label': MARKS[item.status].label, role: 'img' }, text: MARKS[item.status].mark }),
        h('span', { class: 'todo-text', text: item.text }),
      ]),
    )),
  ]);
}
