import type { ToolDefinition } from '../model/tool';
import type { Tool } from '../tools/types';
import { MAX_TODO_CHARS, MAX_TODOS, renderTodos, TODO_STATUSES, UPDATE_TODOS, validateTodos } from './todoList';

export const UPDATE_TODOS_TOOL: ToolDefinition = {
  name: UPDATE_TODOS,
  description:
    `Keep a short todo list for a task of several steps: send the whole list each time (it replaces the last one), ` +
    `each item with its status (pending, in_progress, done); keep one item in_progress at a time. ` +
    `The user sees the list live; it stays in your context after every compaction. At most ${MAX_TODOS} items of ${MAX_TODO_CHARS} characters.`,
  inputSchema: {
    type: 'object',
    properties: {
      todos: {
        type: 'array',
        maxItems: MAX_TODOS,
        items: {
          type: 'object',
          properties: { text: { type: 'string', maxLength: MAX_TODO_CHARS }, status: { type: 'string', enum: [...TODO_STATUSES] } },
          required: ['text', 'status'],
        },
      },
    },
    required: ['todos'],
  },
  source: 'builtin',
  origin: 'session',
};

/** The todo tool: checks the whole list and answers with it rendered, the form compaction carries and the chat shows. */
export function updateTodosTool(): Tool {
  return {
    definition: UPDATE_TODOS_TOOL,
    approval: 'read',
    async execute(args) {
      try {
        return { output: renderTodos(validateTodos(args)) };
      } catch (error) {
        return { output: `${(error as Error).message} The todo list was not changed.`, isError: true };
      }
    },
  };
}
