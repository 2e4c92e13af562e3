import { strict as assert } from 'assert';
import { updateTodosTool } from '../../../../src/core/plan/updateTodosTool';
import { MAX_TODO_CHARS, MAX_TODOS, parseTodos } from '../../../../src/core/plan/todoList';
import type { ToolContext } from '../../../../src/core/tools/types';

const ctx = {} as ToolContext;
const run = (args: Record<string, unknown>) => updateTodosTool().execute(args, ctx);

describe('update_todos', () => {
  it('answers with the whole list, open items counted, and reads back as the same list', async () => {
    const todos = [
      { text: 'Read the parser', status: 'done' },
      { text: 'Fix   the\noff-by-one', status: 'in_progress' },
      { text: 'Add a test', status: 'pending' },
    ];
    const result = await run({ todos });
    assert.equal(result.isError, undefined);
    assert.equal(result.output, 'Todo list (2 open of 3):\n[x] Read the parser\n[~] Fix the off-by-one\n[ ] Add a test');
    assert.deepEqual(parseTodos(String(result.output)), [
      { text: 'Read the parser', status: 'done' },
      { text: 'Fix the off-by-one', status: 'in_progress' },
      { text: 'Add a test', status: 'pending' },
    ]);
  });

  it('an empty list clears it', async () => {
    assert.equal((await run({ todos: [] })).output, 'Todo list (0 open of 0):');
  });

  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ['no list', {}, /needs `todos`/],
    ['a list that is not an array', { todos: 'read, fix' }, /needs `todos`/],
    ['too many items', { todos: Array.from({ length: MAX_TODOS + 1 }, (_, i) => ({ text: `step ${i}`, status: 'pending' })) }, new RegExp(`at most ${MAX_TODOS} items; this one has ${MAX_TODOS + 1}`)],
    ['an item that is not an object', { todos: ['read'] }, /todos\[0\] must be an object/],
    ['an empty text', { todos: [{ text: '  ', status: 'pending' }] }, /todos\[0\]\.text must be a non-empty string/],
    ['a text too long', { todos: [{ text: 'x'.repeat(MAX_TODO_CHARS + 1), status: 'pending' }] }, new RegExp(`${MAX_TODO_CHARS + 1} characters; an item holds at most ${MAX_TODO_CHARS}`)],
    ['an unknown status', { todos: [{ text: 'a', status: 'doing' }] }, /todos\[0\]\.status must be one of pending, in_progress, done \(got "doing"\)/],
    ['no status', { todos: [{ text: 'a' }] }, /todos\[0\]\.status must be one of/],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} with a clear error and keeps the list`, async () => {
      const result = await run(args);
      assert.equal(result.isError, true);
      assert.match(String(result.output), message);
      assert.match(String(result.output), /The todo list was not changed\.$/);
      assert.equal(parseTodos(String(result.output)), undefined);
    });
  }
});
