import { strict as assert } from 'assert';
import { readdirSync } from 'fs';
import { join } from 'path';
import type { RequestItem, RequestUsageRecord } from '../../../../../src/core/model/records';
import { segmentsReadDuring } from '../fixtures/filesRead';
import { parsesDuring } from '../fixtures/jsonParses';
import { storeFolderPerTest } from '../fixtures/storeFolder';
import { countTurns } from '../../../../support/eventLoopTurns';
import { CHAIN_PAGE, chainWork } from '../../../../../src/node/store/segments/usageChain';

const SESSION = 'sturn';
const item = (id: string, tokens: number, badges: RequestItem['badges'] = []): RequestItem => ({ messageId: id, role: 'tool', kind: 'tool_result', tokens, badges, preview: `output of ${id}` });

function usage(index: number, items: RequestItem[], createdAt = index): RequestUsageRecord {
  return {
    id: `u${index}-${createdAt}`, sessionId: SESSION, requestIndex: index, createdAt, model: 'm', contextWindow: 200_000, maxOutputTokens: 8_000,
    components: { system: 1, skills: 0, tools: 0, messages: 0, toolResults: items.length, summaries: 0 }, estimatedInputTokens: items.length, items,
  };
}

describe('one request’s usage record, read alone', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-turn-at-');

  it('gives the same record and item list as the whole list, across segments and windows, reading only its chain', async () => {
    const folder = stores.folder();
    const first = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 8 * 1024 });
    await first.createSession({ id: SESSION, title: 'turns' });
    let items: RequestItem[] = [];
    for (let i = 0; i < 120; i++) {
      items = [...items, item(`a${i}`, 40), item(`t${i}`, 400)];
      if (i % 30 === 29) items = items.slice(-6); // a compaction: most of the list goes, a full list is stored
      if (i % 20 === 19) items = items.map((it, at) => (at === 1 ? item(it.messageId, 12, ['archived']) : it));
      await first.addRequestUsage(usage(i, items));
      if (i % 10 === 9) await first.flush();
    }
    await first.close();
    // A second window goes on from there: its first record is a full list.
    const second = await stores.openStore(folder, { debounceMs: 1e9 });
    for (let i = 120; i < 140; i++) {
      items = [...items, item(`b${i}`, 50)];
      await second.addRequestUsage(usage(i, items));
    }
    await second.close();

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const whole = await store.listRequestUsage(SESSION);
    assert.equal(whole.length, 140);
    for (const expected of whole) {
      const { result: one, parsed } = await parsesDuring(() => store.requestUsageAt(SESSION, expected.requestIndex), '"requestIndex"');
      assert.deepEqual(one, expected, `request ${expected.requestIndex}`);
      // Back to the last compaction (a full list) at most, never the requests after it.
      const sinceFull = expected.requestIndex >= 120 ? expected.requestIndex - 120 : expected.requestIndex % 30;
      assert.ok(parsed <= sinceFull + 2, `request ${expected.requestIndex}: ${parsed} bodies parsed`);
    }
    assert.equal(await store.requestUsageAt(SESSION, 140), undefined, 'no such request');

    // A later window, with every segment's facts recorded: a recent request opens the newest segments only.
    await store.close();
    const later = await stores.openStore(folder, { debounceMs: 1e9 });
    const segments = readdirSync(join(folder, 'sessions', SESSION)).filter((n) => /\.seg\d+\.sqlite$/.test(n)).length;
    const { result, read } = await segmentsReadDuring(() => later.requestUsageAt(SESSION, 100));
    assert.deepEqual(result, whole[100]);
    assert.ok(segments >= 10 && read.length <= 4, `read ${read.length} of ${segments} segments`);
  });

  it('an index stored twice (two windows) gives the first stored, as the list does', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    await store.createSession({ id: SESSION, title: 'twice' });
    await store.addRequestUsage(usage(0, [item('a', 1)], 10));
    await store.addRequestUsage(usage(0, [item('a', 1), item('b', 2)], 5));
    const listed = (await store.listRequestUsage(SESSION)).find((u) => u.requestIndex === 0);
    assert.deepEqual(await store.requestUsageAt(SESSION, 0), listed);
    assert.equal(listed?.createdAt, 5);
  });

  it('a list resting on a long chain of changes is read a page of requests at a time, with turns of the event loop between, and the page before a full list is not read', async () => {
    const folder = stores.folder();
    const first = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 256 * 1024 });
    await first.createSession({ id: SESSION, title: 'grew' });
    // A session that only grew: every record a change of the one before, from one full list (large:
    // its body is read alone, once the chain reaches it).
    let items: RequestItem[] = Array.from({ length: 2_000 }, (_, i) => item(`old${i}`, 30));
    const requests = 4 * CHAIN_PAGE + 37;
    for (let i = 0; i < requests; i++) {
      items = [...items, item(`a${i}`, 40)];
      await first.addRequestUsage(usage(i, items));
      if (i % 100 === 99) await first.flush();
    }
    await first.close();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const pagesBefore = chainWork.pages;
    const bodiesBefore = chainWork.bodies;
    const { result, turns } = await countTurns(() => store.requestUsageAt(SESSION, requests - 1));
    assert.deepEqual(result?.items, items);
    assert.equal(chainWork.bodies - bodiesBefore, 1, 'the full list read alone');
    const pages = chainWork.pages - pagesBefore;
    assert.equal(pages, Math.ceil(requests / CHAIN_PAGE), 'one query per page of requests, back to the full list');
    assert.ok(turns >= pages - 1, `${turns} turns of the event loop over ${pages} pages`);
    // A list whose chain starts inside the newest page reads that page only.
    const again = await stores.openStore(folder, { debounceMs: 1e9 });
    await again.addRequestUsage({ ...usage(requests, [item('summary', 300)]) });
    await again.addRequestUsage(usage(requests + 1, [item('summary', 300), item('b', 5)]));
    await again.flush();
    const pagesThen = chainWork.pages;
    assert.deepEqual((await again.requestUsageAt(SESSION, requests + 1))?.items, [item('summary', 300), item('b', 5)]);
    assert.equal(chainWork.pages - pagesThen, 1);
    await again.close();
    await store.close();
  });
});
