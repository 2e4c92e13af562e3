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
