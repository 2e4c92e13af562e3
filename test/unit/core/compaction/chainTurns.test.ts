import { strict as assert } from 'assert';
import { runStrategyChain } from '../../../../src/core/compaction/chain';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import type { CompactionStrategy, StrategyContext } from '../../../../src/core/compaction/types';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { msg } from '../../../support/syntheticSession';

function ctx(): StrategyContext {
  let n = 0;
  return {
    settings: withSettings({}),
    effectiveWindow: 20_000,
    fixedTokens: 0,
    targetTokens: 0,
    trigger: 'manual',
    dryRun: true,
    countTokens: () => 100,
    summarizer: new LocalSummarizer(),
    offload: async () => `ref${++n}`,
    newId: () => `new${++n}`,
    now: () => 1,
    progress: () => undefined,
  };
}

describe('core/compaction/chain: a long compaction lets the host answer between its strategies', () => {
  it('a timer set while one strategy runs fires before the next strategy starts', async () => {
    const seen: string[] = [];
    const strategy = (name: string): CompactionStrategy => ({
      name,
      shouldRun: () => {
        seen.push(`${name} starts`);
        return true;
      },
      apply: async (messages) => {
        // Work the host has waiting (a view's message, a callback queued meanwhile): it runs on the loop's next turn.
        setImmediate(() => seen.push(`the host's turn after ${name}`));
        return { messages: [...messages], removed: [] };
      },
    });
    const history: Message[] = [msg({ role: 'user', content: 'Fix the build.' }), msg({ role: 'assistant', content: 'Looking.' })];

    await runStrategyChain(history, [strategy('first'), strategy('second'), strategy('third')], ctx());

    assert.deepEqual(seen.slice(0, 5), ['first starts', "the host's turn after first", 'second starts', "the host's turn after second", 'third starts']);
  });
});

describe('core/compaction/chain: what a strategy made is counted in slices', () => {
  it('5,000 pointers a strategy made are counted at most 1,000 between two turns of the event loop, each once', async () => {
    const history: Message[] = [msg({ role: 'user', content: 'Fix the build.' }), ...Array.from({ length: 5_000 }, (_, i) => msg({ role: 'assistant', content: `step ${i}` }))];
    const made = history.map((m) => ({ ...m, content: `[pointer to ${m.id}]` }));
    const isMade = new Set<Message>(made);
    const after: CompactionStrategy = { name: 'after', shouldRun: () => false, apply: async (messages) => ({ messages: [...messages], removed: [] }) };
    const pointers: CompactionStrategy = {
      name: 'pointers',
      shouldRun: () => true,
      apply: async () => ({ messages: made, removed: history.map((m) => ({ messageId: m.id, reason: 'archived', strategy: 'pointers', kind: m.kind, role: m.role, tokens: 1, preview: '' })) }),
    };
    const counted = new WeakSet<Message>();
    let turn = 0;
    let sinceTurn = 0;
    let most = 0;
    const ticking = { on: true };
    const tick = () => {
      if (!ticking.on) return;
      turn++;
      sinceTurn = 0;
      setImmediate(tick);
    };
    setImmediate(tick);
    const context = { ...ctx(), targetTokens: 1, countTokens: (m: Message) => {
      if (isMade.has(m) && !counted.has(m)) {
        counted.add(m);
        most = Math.max(most, ++sinceTurn);
      }
      return 100;
    } };
    try {
      await runStrategyChain(history, [pointers, after], context);
    } finally {
      ticking.on = false;
    }
    assert.ok(most <= 1_000, `pointers counted without a turn: ${most}`);
    assert.ok(made.every((m) => counted.has(m)), 'every pointer counted before the next strategy');
    assert.ok(turn > 5, `turns: ${turn}`);
  });
});
