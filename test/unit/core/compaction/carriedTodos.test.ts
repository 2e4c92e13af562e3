import { strict as assert } from 'assert';
import { ContextBudget } from '../../../../src/core/accounting/budget';
import { defaultStrategies } from '../../../../src/core/compaction/chain';
import { runCompaction } from '../../../../src/core/compaction/compactor';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import { pairingViolations } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import { currentTodoItem, parseTodos, renderTodos, UPDATE_TODOS, type TodoItem } from '../../../../src/core/plan/todoList';
import { withSettings } from '../../../../src/core/settings';
import { call, msg } from '../../../support/syntheticSession';

const count = (m: Message) => Math.ceil((m.content.length + (m.toolCalls ?? []).reduce((n, c) => n + c.arguments.length + c.name.length, 0)) / 4) + 4;

const firstList: TodoItem[] = [
  { text: 'Find where the parser drops the last token', status: 'in_progress' },
  { text: 'Fix the off-by-one', status: 'pending' },
];
const secondList: TodoItem[] = [
  { text: 'Find where the parser drops the last token', status: 'done' },
  { text: 'Fix the off-by-one', status: 'in_progress' },
  { text: 'Add a regression test', status: 'pending' },
];

function todoCall(items: TodoItem[]): Message[] {
  const c = call(UPDATE_TODOS, { todos: items });
  return [msg({ role: 'assistant', content: 'Planning.', toolCalls: [c] }), msg({ role: 'tool', content: renderTodos(items), toolCallId: c.id, toolName: UPDATE_TODOS })];
}

/** A screenshot pasted with the first request (an image compaction can replace by a pointer). */
const screenshot: Message = { ...msg({ role: 'user', content: '[Attached image pasted image (PNG 800×600, 640 tokens), pasted into the chat]' }), kind: 'attachment', images: [{ mediaType: 'image/png', width: 800, height: 600, byteSize: 4_000, origin: 'pasted', label: 'pasted image', ref: 'r-image', tokens: 640 }] };

/** A task with its todo list written early, then many large tool results, over several user turns. */
function session(): Message[] {
  const out: Message[] = [screenshot, msg({ role: 'user', content: 'Request 0: fix the parser.' }), ...todoCall(firstList)];
  for (let t = 0; t < 12; t++) {
    if (t === 2) out.push(...todoCall(secondList));
    if (t === 4 || t === 8) out.push(msg({ role: 'user', content: `Request ${t}: go on.` }));
    const c = call('run_command', { command: `make test${t}` });
    out.push(msg({ role: 'assistant', content: `Turn ${t}: checking.`, toolCalls: [c] }));
    out.push(msg({ role: 'tool', content: `line of output ${t}\n`.repeat(150), toolCallId: c.id, toolName: 'run_command' }));
  }
  out.push(msg({ role: 'user', content: 'Request 12: finish.' }));
  return out;
}

let n = 0;
async function compact(history: readonly Message[], only: string, window = 12_000) {
  return runCompaction({
    id: `c${++n}`,
    sessionId: 's1',
    history,
    openCallIds: new Set(),
    budget: new ContextBudget({ contextWindow: window, settings: withSettings({}) }),
    options: { trigger: 'manual', only: [only] },
    settings: withSettings({ masking: { keepLast: 1, minBatchTokens: 100 }, toolSummaryAfterTurns: 1 }),
    strategies: defaultStrategies(),
    summarizer: new LocalSummarizer(),
    countTokens: count,
    offload: async () => `ref${++n}`,
    newId: () => `new${++n}`,
    now: () => 0,
    emit: () => undefined,
  });
}

describe('the todo list after a compaction', () => {
  for (const strategy of defaultStrategies().map((s) => s.name)) {
    it(`${strategy}: the current list is in the context verbatim afterwards, once, as the plan's item`, async () => {
      const before = session();
      const outcome = await compact(before, strategy);
      assert.equal(outcome.event.status, 'complete', `${strategy} removed something (${outcome.event.error ?? ''})`);
      const after = outcome.messages;
      const current = currentTodoItem(after);
      assert.ok(current, 'a todo list is in the context');
      assert.deepEqual(parseTodos(current!.content), secondList);
      const whole = after.filter((m) => m.agentVisible && m.content === renderTodos(secondList));
      assert.equal(whole.length, 1, 'carried once');
      assert.deepEqual(pairingViolations(after), []);
      assert.ok(!outcome.event.removed.some((r) => r.messageId === current!.id), 'the carried list is not listed as removed');
    });
  }

  it('a list carried by one compaction survives the next ones, and a newer list replaces it', async () => {
    let history = (await compact(session(), 'threshold-summarization')).messages;
    const carried = history.find((m) => m.kind === 'plan');
    assert.ok(carried, 'threshold summarization removed the list, so it was carried');
    assert.equal(carried!.meta?.plan, 'todos');
    for (const strategy of ['emergency-drop', 'threshold-summarization']) {
      history = [...history, ...session().slice(3)];
      history = (await compact(history, strategy, 8_000)).messages;
      assert.equal(history.filter((m) => m.kind === 'plan').length, 1, `${strategy}: one carried list`);
      assert.deepEqual(parseTodos(currentTodoItem(history)!.content), secondList);
    }
    const third: TodoItem[] = secondList.map((i) => ({ ...i, status: 'done' }));
    history = [...history, ...todoCall(third), msg({ role: 'user', content: 'Thanks.' })];
    assert.deepEqual(parseTodos(currentTodoItem(history)!.content), third, 'the newer result wins over the carried list');
  });

  it('a history without a todo list gets none', async () => {
    const history = session().filter((m) => m.toolName !== UPDATE_TODOS && !m.toolCalls?.some((c) => c.name === UPDATE_TODOS));
    const outcome = await compact(history, 'threshold-summarization');
    assert.equal(outcome.messages.filter((m) => m.kind === 'plan').length, 0);
  });
});
