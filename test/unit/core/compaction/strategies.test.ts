import { strict as assert } from 'assert';
import { runStrategyChain, defaultStrategies } from '../../../../src/core/compaction/chain';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import { EmergencyDrop } from '../../../../src/core/compaction/strategies/emergencyDrop';
import { GoalBatchCompaction } from '../../../../src/core/compaction/strategies/goalBatchCompaction';
import { ThresholdSummarization } from '../../../../src/core/compaction/strategies/thresholdSummarization';
import { ToolCallSummarization } from '../../../../src/core/compaction/strategies/toolCallSummarization';
import { ToolResultMasking } from '../../../../src/core/compaction/strategies/toolResultMasking';
import type { StrategyContext } from '../../../../src/core/compaction/types';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { call, msg } from '../../../support/syntheticSession';

const count = (m: Message) => Math.ceil((m.content.length + (m.toolCalls ?? []).reduce((n, c) => n + c.arguments.length + c.name.length, 0)) / 4) + 4;
const total = (ms: readonly Message[]) => ms.reduce((n, m) => n + count(m), 0);

function ctx(overrides: Partial<StrategyContext> = {}): StrategyContext {
  let n = 0;
  const offloaded: string[] = [];
  return {
    settings: withSettings({ masking: { keepLast: 2, minBatchTokens: 100 }, toolSummaryAfterTurns: 3 }),
    effectiveWindow: 20_000,
    fixedTokens: 0,
    targetTokens: 2_000,
    trigger: 'auto',
    dryRun: false,
    countTokens: count,
    summarizer: new LocalSummarizer(),
    offload: async (content) => {
      offloaded.push(content);
      return `ref${offloaded.length}`;
    },
    newId: () => `new${++n}`,
    now: () => 1,
    progress: () => undefined,
    ...overrides,
  };
}

/** user task, then `turns` assistant calls each answered by a 2 KB output. */
function toolSession(turns: number, users: number[] = [0]): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) {
    if (users.includes(t)) out.push(msg({ role: 'user', content: `Request ${t}: please fix module ${t}.` }));
    const c = call(t % 2 ? 'read_file' : 'run_command', t % 2 ? { path: `src/m${t}.ts` } : { command: `make test${t}` });
    out.push(msg({ role: 'assistant', content: `Turn ${t}: checking.`, toolCalls: [c] }));
    out.push(msg({ role: 'tool', content: `line of output ${t}\n`.repeat(120), toolCallId: c.id, toolName: c.name }));
  }
  return out;
}

describe('compaction strategies', () => {
  it('masking archives all but the last N results, with a retrievable pointer, keeping pairs', async () => {
    const messages = toolSession(6);
    const strategy = new ToolResultMasking();
    const c = ctx();
    assert.equal(strategy.shouldRun(messages, c), true);
    const out = await strategy.apply(messages, c);
    const archived = out.messages.filter((m) => m.kind === 'tool_result_archived');
    assert.equal(archived.length, 4);
    assert.equal(out.messages.filter((m) => m.kind === 'tool_result').length, 2);
    assert.match(archived[0].content, /^\[Archived tool result: run_command \{"command":"make test0"\} — \d+ lines, [\d,]+ tokens, retrievable with read_result ref_id="ref1"\]$/);
    assert.equal(out.removed.length, 4);
    assert.ok(out.removed.every((r) => r.reason === 'archived' && r.offloadRef));
    assert.deepEqual(validateHistory(out.messages), []);
    assert.ok(total(out.messages) < total(messages) / 2);
  });

  it('masking does not run when the batch is too small to be worth a cache miss', () => {
    const messages = toolSession(3);
    const c = ctx({ settings: withSettings({ masking: { keepLast: 2, minBatchTokens: 100_000 } }) });
    assert.equal(new ToolResultMasking().shouldRun(messages, c), false);
  });

  it('tool-call summarization replaces old call groups with one digest', async () => {
    const messages = toolSession(8);
    const out = await new ToolCallSummarization().apply(messages, ctx());
    const digests = out.messages.filter((m) => m.kind === 'tool_summary');
    assert.equal(digests.length, 1);
    assert.match(digests[0].content, /Digest of 5 earlier tool calls/);
    assert.match(digests[0].content, /`make test0` → ok/);
    assert.equal(out.messages[0].kind, 'user', 'the user request stays');
    // the last 3 turns (assistant requests) stay verbatim
    assert.equal(out.messages.filter((m) => m.role === 'assistant').length, 3);
    assert.deepEqual(validateHistory(out.messages), []);
  });

  it('threshold summarization keeps recent messages and the user\'s words, inserts a checkpoint', async () => {
    const messages = toolSession(20, [0, 10]);
    const c = ctx({ targetTokens: 6_000 });
    const strategy = new ThresholdSummarization();
    assert.equal(strategy.shouldRun(messages, c), true);
    const out = await strategy.apply(messages, c);
    const summary = out.messages.find((m) => m.kind === 'summary');
    assert.ok(summary, 'a checkpoint was inserted');
    assert.match(summary!.content, /^\[Context checkpoint: \d+ earlier messages \([\d,]+ tokens\) were summarized/);
    // The user's words stay verbatim below, so the checkpoint (of what it replaces) does not repeat them.
    assert.match(summary!.content, /Stored outputs \(read_result ref_id\):\n- ref\d+: run_command `make test0` → \d+ lines\n/);
    const users = out.messages.filter((m) => m.kind === 'user').map((m) => m.content);
    assert.deepEqual(users, ['Request 0: please fix module 0.', 'Request 10: please fix module 10.']);
    assert.equal(out.messages[out.messages.length - 1].id, messages[messages.length - 1].id, 'the latest message stays');
    assert.ok(total(out.messages) <= 6_000, `after: ${total(out.messages)}`);
    assert.ok(out.removed.every((r) => r.reason === 'summarized'));
    assert.deepEqual(validateHistory(out.messages), []);
  });

  it('threshold summarization keeps pinned call groups whole', async () => {
    const messages = toolSession(12);
    messages[2] = { ...messages[2], pinned: true }; // a tool result
    const out = await new ThresholdSummarization().apply(messages, ctx({ targetTokens: 3_000 }));
    assert.ok(out.messages.some((m) => m.id === messages[2].id));
    assert.ok(out.messages.some((m) => m.id === messages[1].id), 'its call stays with it');
    assert.deepEqual(validateHistory(out.messages), []);
  });

  it('goal-batch condenses completed turns into episodes, never the current one', async () => {
    const messages = toolSession(9, [0, 3, 6]);
    const out = await new GoalBatchCompaction().apply(messages, ctx());
    const episodes = out.messages.filter((m) => m.kind === 'episode');
    assert.equal(episodes.length, 1, 'only turns older than the last completed one');
    assert.deepEqual(out.messages.filter((m) => m.kind === 'user').map((m) => m.content), [
      'Request 0: please fix module 0.',
      'Request 3: please fix module 3.',
      'Request 6: please fix module 6.',
    ]);
    assert.deepEqual(validateHistory(out.messages), []);
  });

  it('emergency drop removes the oldest whole groups, marks the cut and keeps the latest request', async () => {
    const messages = toolSession(10, [0, 9]);
    const out = await new EmergencyDrop().apply(messages, ctx({ targetTokens: 1_000 }));
    const marker = out.messages.find((m) => m.kind === 'note');
    assert.ok(marker);
    assert.match(marker!.content, /earlier messages were dropped here \([\d,]+ tokens\) because the window was full/);
    assert.ok(out.messages.some((m) => m.content === 'Request 9: please fix module 9.'));
    assert.equal(out.messages[out.messages.length - 1].id, messages[messages.length - 1].id);
    assert.deepEqual(validateHistory(out.messages), []);
    assert.ok(out.removed.every((r) => r.reason === 'dropped'));
  });

  it('the chain runs cheapest first and stops as soon as the target is met', async () => {
    const messages = toolSession(10);
    const c = ctx({ targetTokens: total(messages) - 500 });
    const out = await runStrategyChain(messages, defaultStrategies(), c);
    assert.deepEqual(out.strategiesRun, ['tool-result-masking']);
    const deep = await runStrategyChain(messages, defaultStrategies(), ctx({ targetTokens: 400 }));
    assert.ok(deep.strategiesRun.length >= 2);
    assert.equal(deep.strategiesRun[0], 'tool-result-masking');
    assert.deepEqual(validateHistory(deep.messages), []);
  });
});
