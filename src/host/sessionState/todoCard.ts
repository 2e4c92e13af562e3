import type { Message } from '../../core/model/message';
import { currentTodoItem, parseTodos, UPDATE_TODOS } from '../../core/plan/todoList';
import type { ChatEntry } from '../../protocol/chat';

/** The key of the chat's one todo card. */
export const TODOS_KEY = 'todos:current';

/** The chat's todo card for the messages held: the latest list the agent kept, or none. */
export function todoCardOf(messages: readonly Message[]): Extract<ChatEntry, { kind: 'todos' }> | undefined {
  const item = currentTodoItem(messages);
  const items = item && parseTodos(item.content);
  if (!items || items.length === 0) return undefined;
  return { kind: 'todos', id: 'current', items, open: items.filter((i) => i.status !== 'done').length };
}

/** Whether a write may change the todo card: it holds an update_todos result. */
export function touchesTodos(messages: readonly Message[]): boolean {
  return messages.some((m) => m.toolName === UPDATE_TODOS);
}
