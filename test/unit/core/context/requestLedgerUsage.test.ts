/** The per-request ledger keeps every figure the provider reported, in a real sql.js store on disk, and old records still read. */
import { strict as assert } from 'assert';
import type { ContextBudget } from '../../../../src/core/accounting/budget';
import type { RequestItem } from '../../../../src/core/model/records';
import { RequestLedger } from '../../../../src/core/context/requestLedger';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

const items: RequestItem[] = [{ messageId: 'm1', role: 'user', kind: 'user', tokens: 12_340, badges: [], preview: 'Fix the loader.', section: 'conversation' }];
const budget = { contextWindow: 200_000, maxOutputTokens: 16_000, components: { system: 0, skills: 0, tools: 0, messages: 12_340, toolResults: 0, summaries: 0 }, estimatedTotal: 12_340 } as unknown as ContextBudget;

describe('request ledger usage figures', () => {
  const stores = storeFolderPerTest('tally-ledger-usage-');

  it('stores input, cache read, cache write, output and reasoning tokens, and reads them back after reopening', async () => {
    let store = await stores.openStore(stores.folder());
    const session = await store.createSession({ title: 'usage' });
    const ledger = new RequestLedger(store, session.id, 0, () => 1_000);
    await ledger.record({ plan: { messages: [], items, budget, repaired: 0 }, model: 'claude-sonnet-4-5', reported: { inputTokens: 12_340, cacheReadTokens: 9_800, cacheWriteTokens: 1_200, outputTokens: 820, reasoningTokens: 610 } });
    await store.close();

    store = await stores.openStore(stores.folder());
    const expected = { reportedInputTokens: 12_340, cacheReadTokens: 9_800, cacheWriteTokens: 1_200, reportedOutputTokens: 820, reasoningTokens: 610 };
    const figures = (r: Record<string, unknown> | undefined) => r && Object.fromEntries(Object.keys(expected).map((k) => [k, r[k]]));
    assert.deepEqual(figures((await store.requestUsageAt(session.id, 0)) as never), expected);
    assert.deepEqual(figures((await store.listRequestUsage(session.id, { items: false }))[0] as never), expected);
  });

  it('reads a record written before reasoning tokens were kept, without them', async () => {
    const store = await stores.openStore(stores.folder());
    const session = await store.createSession({ title: 'old' });
    await store.addRequestUsage({ id: 'u-old', sessionId: session.id, requestIndex: 0, createdAt: 5, model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 4_096, components: budget.components, estimatedInputTokens: 100, reportedInputTokens: 110, reportedOutputTokens: 20, cacheReadTokens: 0, items });
    const record = await store.requestUsageAt(session.id, 0);
    assert.deepEqual([record?.reportedInputTokens, record?.reportedOutputTokens, record?.reasoningTokens, record?.items.length], [110, 20, undefined, 1]);
  });
});
