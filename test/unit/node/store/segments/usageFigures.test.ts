import { strict as assert } from 'assert';
import type { RequestItem, RequestUsageRecord } from '../../../../../src/core/model/records';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const item = (id: string, preview: string): RequestItem => ({ messageId: id, role: 'tool', kind: 'tool_result', tokens: 10, badges: [], preview });

function record(requestIndex: number, items: RequestItem[], extra: Partial<RequestUsageRecord> = {}): RequestUsageRecord {
  return {
    id: `u${requestIndex}`, sessionId: 'sfig', requestIndex, createdAt: 100 + requestIndex, model: 'model "quoted",\"storedItems\":', contextWindow: 128_000, maxOutputTokens: 8_192,
    components: { system: 1, skills: 2, tools: 3, messages: 4 * requestIndex, toolResults: 5, summaries: 0 }, estimatedInputTokens: 10 + requestIndex, reportedInputTokens: 12 + requestIndex, itemCount: items.length, items, ...extra,
  };
}

describe('usage figures without their item lists', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-usage-figures-');

  it('are the same figures the full records carry, including prompt texts, whatever the items and model name contain', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    await store.createSession({ id: 'sfig', title: 'figures' });
    const tricky = ',"storedItems":{"full":[]}} and a quote " and a backslash \\';
    const lists = [[item('a', tricky)], [item('a', tricky), item('b', 'plain')], [item('b', 'plain'), item('c', '"storedItems":')]];
    for (let i = 0; i < lists.length; i++) await store.addRequestUsage(record(i, lists[i], i === 0 ? { texts: { h1: `system text ${tricky}` } } : {}));
    await store.flush();
    await store.close();

    const reopened = await stores.openStore(folder, { debounceMs: 1e9 });
    const full = await reopened.listRequestUsage('sfig');
    const figures = await reopened.listRequestUsage('sfig', { items: false });
    assert.deepEqual(full.map((r) => r.items.map((i) => i.messageId)), [['a'], ['a', 'b'], ['b', 'c']], 'the full lists rebuild');
    assert.deepEqual(figures, full.map((r) => ({ ...r, items: [] })), 'the figures without items are the full records without their lists');
    assert.equal(figures[0].texts?.h1, `system text ${tricky}`);
  });
});
