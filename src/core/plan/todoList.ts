import type { Message } from '../model/message';

/** One step of the agent's todo list. */
export interface TodoItem {
  text: string;
  status: TodoStatus;
}

export type TodoStatus = 'pending' | 'in_progress' | 'done';

export const TODO_STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'done'];
/** The list stays short: a plan of steps, not a log. */
export const MAX_TODOS = 20;
/** One step is one line of a sentence or two. */
export const MAX_TODO_CHARS = 200;

export const UPDATE_TODOS = 'update_todos';

/** The first line of a rendered list: how the list is found again in a tool result or a carried item. */
const HEADING = 'Todo list';
const MARKS: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[~]', done: '[x]' };

/** The list as the model and the chat read it: a heading, then one marked line per item. */
export function renderTodos(items: readonly TodoItem[]): string {
  const open = items.filter((i) => i.status !== 'done').length;
  const lines = items.map((i) => `${MARKS[i.status]} ${i.text}`);
  return [`${HEADING} (${open} open of ${items.length}):`, ...lines].join('\n');
}

/** Reads a rendered list back; undefined when the text is not one. */
export function parseTodos(text: string): TodoItem[] | undefined {
  const [head, ...lines] = text.split('\n');
  if (!head?.startsWith(`${HEADING} (`)) return undefined;
  const items: TodoItem[] = [];
  for (const line of lines) {
    const status = TODO_STATUSES.find((s) => line.startsWith(`${MARKS[s]} `));
    if (!status) return undefined;
    items.push({ text: line.slice(MARKS[status].length + 1), status });
  }
  return items;
}

/** Checks the tool's arguments: the whole list, each item a short text and a known status. Throws with what is wrong. */
export function validateTodos(args: Record<string, unknown>): TodoItem[] {
  const todos = args.todos;
  if (!Array.isArray(todos)) throw new Error('update_todos needs `todos`: the whole list, an array of {text, status}.');
  if (todos.length > MAX_TODOS) throw new Error(`The todo list holds at most ${MAX_TODOS} items; this one has ${todos.length}. Merge steps or drop finished ones.`);
  return todos.map((raw, index) => {
    const where = `todos[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${where} must be an object {text, status}.`);
    const { text, status } = raw as Record<string, unknown>;
    if (typeof text !== 'string' || !text.trim()) throw new Error(`${where}.text must be a non-empty string.`);
    const oneLine = text.trim().replace(/\s+/g, ' ');
    if (oneLine.length > MAX_TODO_CHARS) throw new Error(`${where}.text is ${oneLine.length} characters; an item holds at most ${MAX_TODO_CHARS}.`);
    if (typeof status !== 'string' || !(TODO_STATUSES as readonly string[]).includes(status)) {
      throw new Error(`${where}.status must be one of ${TODO_STATUSES.join(', ')}${typeof status === 'string' ? ` (got "${status}")` : ''}.`);
    }
    return { text: oneLine, status: status as TodoStatus };
  });
}

/**
 * Where the current todo list of a working context is: the latest successful `update_todos` result
 * kept whole, or the list a compaction carried, whichever is newer. Undefined when the agent never
 * kept one (or the list it kept was summarized by code that did not carry it).
 */
export function currentTodoItem(history: readonly Message[]): Message | undefined {
  let latest: Message | undefined;
  for (const m of history) {
    if (!m.agentVisible || !holdsTodoList(m)) continue;
    if (!latest || m.createdAt >= latest.createdAt) latest = m;
  }
  return latest;
}

/** A carried todo list, or a whole successful update_todos result. */
export function holdsTodoList(m: Message): boolean {
  if (m.kind === 'plan') return m.meta?.plan === 'todos';
  return m.kind === 'tool_result' && m.toolName === UPDATE_TODOS && !m.meta?.isError && parseTodos(m.content) !== undefined;
}

/** The lines of a list's open items, when a message holds a todo list (a whole result or a carried one). */
export function openTodoLines(m: Message): string[] | undefined {
  if (!holdsTodoList(m)) return undefined;
  return (parseTodos(m.content) ?? []).filter((i) => i.status !== 'done').map((i) => `${MARKS[i.status]} ${i.text}`);
}
