/** Cost and cache figures the chat shows under a turn, from the usage records and the model's price. */
import { strict as assert } from 'assert';
import type { RequestUsageRecord } from '../../../../src/core/model/records';
import { modelPrices, parsePriceOverrides } from '../../../../src/core/providers/models/modelRegistry';
import { stateOf } from '../../../support/sessionStates';
import { requestCost, turnUsage } from '../../../../src/host/figures/turnFigures';

function record(fields: Partial<RequestUsageRecord>): RequestUsageRecord {
  return {
    id: 'u', sessionId: 's', requestIndex: 0, createdAt: 1, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 16_000,
    components: { system: 0, skills: 0, tools: 0, messages: 0, toolResults: 0, summaries: 0 } as RequestUsageRecord['components'],
    estimatedInputTokens: 0, items: [], ...fields,
  };
}

describe('chat turn figures', () => {
  it('prices cached input at the cache-read price and the rest at the input price (Claude Sonnet 4.5: $3 / $15 / $0.30 / $3.75)', () => {
    const r = record({ reportedInputTokens: 100_000, cacheReadTokens: 80_000, cacheWriteTokens: 10_000, reportedOutputTokens: 2_000 });
    // 10,000 fresh × 3 + 80,000 × 0.3 + 10,000 × 3.75 + 2,000 × 15, per million.
    assert.strictEqual(requestCost(r, modelPrices('claude-sonnet-4-5')!).toFixed(6), '0.121500');
  });

  it('sums a turn: last request size, input, output, cache share and cost', () => {
    const usage = turnUsage([
      record({ model: 'gpt-4o', reportedInputTokens: 10_000, reportedOutputTokens: 300, cacheReadTokens: 0 }),
      record({ model: 'gpt-4o', requestIndex: 1, reportedInputTokens: 12_000, reportedOutputTokens: 200, cacheReadTokens: 9_984 }),
    ]);
    assert.deepStrictEqual({ ...usage, cost: usage?.cost?.toFixed(6) }, {
      requests: 2, lastRequestTokens: 12_000, inputTokens: 22_000, outputTokens: 500, cachedTokens: 9_984, cacheWriteTokens: undefined, reasoningTokens: undefined,
      // (10,000 + 2,016) × 2.5 + 9,984 × 1.25 + 500 × 10, per million.
      cost: '0.047520',
    });
  });

  it('sums cache writes and reasoning over a turn, and leaves them out when no request reported them', () => {
    const usage = turnUsage([
      record({ reportedInputTokens: 12_340, cacheReadTokens: 9_800, cacheWriteTokens: 1_200, reportedOutputTokens: 820, reasoningTokens: 610 }),
      record({ requestIndex: 1, reportedInputTokens: 13_000, cacheReadTokens: 12_000, reportedOutputTokens: 100 }),
    ]);
    assert.deepStrictEqual([usage?.cachedTokens, usage?.cacheWriteTokens, usage?.outputTokens, usage?.reasoningTokens], [21_800, 1_200, 920, 610]);
    const plain = turnUsage([record({ model: 'gpt-4o', reportedInputTokens: 100, reportedOutputTokens: 5 })]);
    assert.deepStrictEqual([plain?.cacheWriteTokens, plain?.reasoningTokens], [undefined, undefined]);
  });

  it('bills reasoning as output once: it is part of the output count, and a report of reasoning alone still costs it', () => {
    const prices = modelPrices('claude-sonnet-4-5')!;
    // Thinking is inside the 2,000 output tokens: 2,000 × $15 per million, not 2,000 + 1,500.
    assert.strictEqual(requestCost(record({ reportedInputTokens: 0, reportedOutputTokens: 2_000, reasoningTokens: 1_500 }), prices).toFixed(6), '0.030000');
    assert.strictEqual(requestCost(record({ reportedInputTokens: 0, reasoningTokens: 1_500 }), prices).toFixed(6), '0.022500');
  });

  it('uses the estimate when the provider reported nothing, and shows no cache or cost it cannot know', () => {
    const usage = turnUsage([record({ model: 'qwen2.5-coder:14b', estimatedInputTokens: 5_000 })]);
    assert.deepStrictEqual(usage, { requests: 1, lastRequestTokens: 5_000, inputTokens: 5_000, outputTokens: 0, cachedTokens: undefined, cacheWriteTokens: undefined, reasoningTokens: undefined, cost: undefined });
  });

  it('a price from tally.modelPrices overrides the list price and prices a model the list lacks; bad entries are ignored', () => {
    const overrides = parsePriceOverrides({ 'my-local': { input: 0.5, output: 1.5 }, 'GPT-4o': { input: 1, output: 2 }, broken: { input: 'x', output: 1 }, arr: [1] });
    assert.deepStrictEqual(Object.keys(overrides).sort(), ['gpt-4o', 'my-local']);
    assert.strictEqual(turnUsage([record({ model: 'my-local', reportedInputTokens: 1_000_000, reportedOutputTokens: 1_000_000 })], overrides)?.cost, 2);
    assert.strictEqual(turnUsage([record({ model: 'openai/gpt-4o', reportedInputTokens: 1_000_000, reportedOutputTokens: 0 })], overrides)?.cost, 1);
    assert.strictEqual(modelPrices('some-unknown-model'), undefined);
  });

  it("a message's tokens are the inspector's: the last listed count, else the stored count without the message framing", () => {
    const transcript = [
      { id: 'm1', role: 'user' as const, kind: 'user' as const, content: 'hi', agentVisible: true, userVisible: true, createdAt: 1, tokens: 7 },
      { id: 'm2', role: 'assistant' as const, kind: 'assistant' as const, content: 'yo', agentVisible: true, userVisible: true, createdAt: 2, tokens: 9 },
    ];
    const entries = stateOf(transcript, { usage: [record({ items: [{ messageId: 'm1', role: 'user', kind: 'user', tokens: 3, badges: [], preview: 'hi' }] })] }).chatEntries();
    assert.deepStrictEqual(entries.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => [e.id, (e as { tokens?: number }).tokens]), [['m1', 3], ['m2', 5]]);
  });
});
