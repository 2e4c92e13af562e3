import { strict as assert } from 'assert';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import { ToolResultMasking } from '../../../../src/core/compaction/strategies/toolResultMasking';
import type { StrategyContext } from '../../../../src/core/compaction/types';
import { validateHistory } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { countTurns } from '../../../support/eventLoopTurns';
import { call, msg } from '../../../support/syntheticSession';

/** `turns` calls, each answered by a few hundred bytes of output. */
function toolSession(turns: number): Message[] {
  const out: Message[] = [msg({ role: 'user', content: 'Fix the build.' })];
  for (let t = 0; t < turns; t++) {
    const c = call('run_command', { command: `make test${t}` });
    out.push(msg({ role: 'assistant', content: `Turn ${t}.`, toolCalls: [c] }));
    out.push(msg({ role: 'tool', content: `output ${t}\n`.repeat(40), toolCallId: c.id, toolName: c.name }));
  }
  return out;
}

/**
 * Archiving tens of thousands of results stores each one (files written one after another): a
 * few are stored at once, and the pointers and the removed list stay in the history's order.
 */
describe('core/compaction: tool-result masking stores several results at once', () => {
  it('has 4 results being stored at a time, and each pointer names its own result, in order', async () => {
    const messages = toolSession(40);
    let inFlight = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    let n = 0;
    const ctx: StrategyContext = {
      settings: withSettings({ masking: { keepLast: 2, minBatchTokens: 100 } }), effectiveWindow: 20_000, fixedTokens: 0, targetTokens: 2_000, trigger: 'manual', dryRun: false,
      countTokens: (m) => Math.ceil(m.content.length / 4) + 4, summarizer: new LocalSummarizer(), newId: () => `new${++n}`, now: () => 1, progress: () => undefined,
      offload: async (content) => {
        inFlight++;
        most = Math.max(most, inFlight);
        // The disk answers once the test lets it: stored results wait until several are under way.
        await new Promise<void>((resolve) => waiting.push(resolve));
        inFlight--;
        return `ref_${/output (\d+)/.exec(content)![1]}`;
      },
    };
    const applying = new ToolResultMasking().apply(messages, ctx);
    for (let settled = 0; settled < 38; ) {
      await new Promise((resolve) => setImmediate(resolve));
      const ready = waiting.splice(0);
      settled += ready.length;
      for (const resolve of ready) resolve();
    }
    const out = await applying;
    assert.equal(most, 4, 'results stored at once');
    const archived = out.messages.filter((m) => m.kind === 'tool_result_archived');
    assert.equal(archived.length, 38);
    archived.forEach((m, t) => assert.match(m.content, new RegExp(`make test${t}\\b.*ref_id="ref_${t}"`)));
    assert.deepEqual(out.removed.map((r) => r.offloadRef), archived.map((_, t) => `ref_${t}`));
    assert.deepEqual(validateHistory(out.messages), []);
  });

  it('a preview (whose refs come at once) archives 2,000 results over at least 15 turns of the event loop (about 100 a turn)', async () => {
    const messages = toolSession(2_002);
    let n = 0;
    const ctx: StrategyContext = {
      settings: withSettings({ masking: { keepLast: 2, minBatchTokens: 100 } }), effectiveWindow: 20_000, fixedTokens: 0, targetTokens: 2_000, trigger: 'manual', dryRun: true,
      countTokens: (m) => Math.ceil(m.content.length / 4) + 4, summarizer: new LocalSummarizer(), newId: () => `new${++n}`, now: () => 1, progress: () => undefined,
      offload: async () => `ref_${++n}`,
    };
    const { result, turns } = await countTurns(() => new ToolResultMasking().apply(messages, ctx));
    assert.equal(result.removed.length, 2_000);
    assert.ok(turns >= 15, `turns: ${turns}`);
  });
});
