import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { formatRuns } from '../../../../src/cli/retentionTable';
import type { Message } from '../../../../src/core/model/message';
import { renderTodos, UPDATE_TODOS, type TodoItem } from '../../../../src/core/plan/todoList';
import { policyNamed } from '../../../../src/core/replay/baselines';
import { replayRun } from '../../../../src/core/replay/replay';
import { call, msg } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const LIST: TodoItem[] = [
  { text: 'Reproduce the crash on an empty document', status: 'done' },
  { text: 'Guard parse() against empty input', status: 'in_progress' },
  { text: 'Add a regression test for the empty case', status: 'pending' },
];

/** A run that writes its todo list first, then reads enough that a 6K window must compact several times. */
function run(): Message[] {
  const out: Message[] = [msg({ role: 'system', content: 'You are a careful coding agent.' }), msg({ role: 'user', content: 'Fix the crash in parser.py on empty input.' })];
  const todo = call(UPDATE_TODOS, { todos: LIST });
  out.push(msg({ role: 'assistant', content: 'A plan first.', toolCalls: [todo] }), msg({ role: 'tool', toolCallId: todo.id, toolName: UPDATE_TODOS, content: renderTodos(LIST) }));
  const listing = (n: number) => Array.from({ length: 60 }, (_, k) => `line ${k} of listing ${n}: def helper_${n}_${k}(value): return value * ${k}`).join('\n');
  for (let step = 0; step < 14; step++) {
    const c = call('bash', { command: `cat src/app/module_${step}.py` });
    out.push(msg({ role: 'assistant', content: `Step ${step}: reading.`, toolCalls: [c] }), msg({ role: 'tool', toolCallId: c.id, toolName: 'bash', content: listing(step) }));
  }
  out.push(msg({ role: 'assistant', content: 'Done.' }));
  return out;
}

describe('replay retention of the todo list', function () {
  this.timeout(60_000);

  it('every open todo item before a compaction is in every request after it, and the table shows the figure', async () => {
    const env = await tempStore();
    try {
      const report = await replayRun({ label: 'todos', messages: run(), policy: policyNamed('tally'), store: env.store, counter: getTokenCounter(), contextWindow: 6_000, maxOutputTokens: 750 });
      assert.ok(report.compactions > 1, `the run compacted (${report.compactions})`);
      const k = report.retention.kinds.openTodos;
      assert.equal(k.due, 2 * report.retention.requestsChecked, 'two open items, due in every checked request');
      assert.equal(k.present, k.due, JSON.stringify(report.retention.lost));
      assert.match(formatRuns([report]).split('\n')[0], /open todos/);
    } finally {
      await env.dispose();
    }
  });
});
