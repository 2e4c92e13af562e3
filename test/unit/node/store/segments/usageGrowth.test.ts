import { strict as assert } from 'assert';
import { join } from 'path';
import { openStore } from '../../../../../src/node/store';
import { rebuildItemLists } from '../../../../../src/node/store/segments/usageRecords';
import type { RequestItem, RequestUsageRecord } from '../../../../../src/core/model/records';
import { tempStore } from '../../../../support/tempStore';
import { bytesUnder } from '../../../../support/folderBytes';

const item = (id: string, tokens: number, badges: RequestItem['badges'] = []): RequestItem => ({ messageId: id, role: 'tool', kind: 'tool_result', tokens, badges, preview: `output of ${id} `.repeat(6) });

function usage(sessionId: string, index: number, items: RequestItem[]): RequestUsageRecord {
  return {
    id: `u${index}`, sessionId, requestIndex: index, createdAt: index, model: 'm', contextWindow: 200_000, maxOutputTokens: 8_000,
    components: { system: 1, skills: 0, tools: 0, messages: 0, toolResults: items.length, summaries: 0 }, estimatedInputTokens: items.length, items,
  };
}

/** Writes `requests` usage records of a context that grows by two items a request, with an archive now and then. */
async function writeGrowingSession(store: Awaited<ReturnType<typeof tempStore>>['store'], sessionId: string, requests: number): Promise<RequestUsageRecord[]> {
  const written: RequestUsageRecord[] = [];
  let items: RequestItem[] = [];
  for (let i = 0; i < requests; i++) {
    items = [...items, item(`a${i}`, 40), item(`t${i}`, 400)];
    if (i % 25 === 24) items = items.map((it, at) => (at === 1 ? item(it.messageId, 12, ['archived']) : it));
    const record = usage(sessionId, i, items);
    await store.addRequestUsage(record);
    written.push(record);
  }
  await store.flush();
  return written;
}


describe('usage records grow with what changed, not with the context', () => {
  it('doubling the requests roughly doubles the stored bytes, and every item list reads back exactly after reopening', async function () {
    this.timeout(120_000);
    const small = await tempStore('tally-usage-small-');
    const large = await tempStore('tally-usage-large-');
    try {
      const a = await small.store.createSession({ title: 'small' });
      const b = await large.store.createSession({ title: 'large' });
      await writeGrowingSession(small.store, a.id, 300);
      const written = await writeGrowingSession(large.store, b.id, 600);
      const ratio = bytesUnder(join(large.folder, 'sessions')) / bytesUnder(join(small.folder, 'sessions'));
      // Whole lists in every record would make this about 4 (quadratic growth).
      assert.ok(ratio < 2.6, `600 requests take ${ratio.toFixed(2)}× the bytes of 300`);
      await large.store.close();
      const reopened = await openStore(large.folder, { debounceMs: 5 });
      try {
        const read = await reopened.listRequestUsage(b.id);
        assert.equal(read.length, 600);
        for (const [i, record] of read.entries()) assert.deepEqual(record.items, written[i].items, `request ${i}`);
      } finally {
        await reopened.close();
      }
    } finally {
      await small.dispose();
      await large.dispose().catch(() => undefined);
    }
  });

  it('a row whose base was lost reads as an empty list, and rows stored whole by older versions still read', () => {
    const base = { ...usage('s', 0, []), items: undefined, storedItems: { full: [item('a', 1)] } };
    const orphan = { ...usage('s', 1, []), id: 'u1', items: undefined, storedItems: { base: 'gone', removed: [], added: [[1, item('b', 2)]] as Array<[number, RequestItem]> } };
    const child = { ...usage('s', 2, []), id: 'u2', items: undefined, storedItems: { base: 'u1', removed: [], added: [[2, item('c', 3)]] as Array<[number, RequestItem]> } };
    const old = usage('s', 3, [item('z', 9)]);
    const read = rebuildItemLists([base, orphan, child, { ...old, id: 'u3' }]);
    assert.deepEqual(read.map((r) => r.items.map((i) => i.messageId)), [['a'], [], [], ['z']]);
  });
});
