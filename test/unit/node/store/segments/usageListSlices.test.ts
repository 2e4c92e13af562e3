import { strict as assert } from 'assert';
import type { RequestUsageRecord } from '../../../../../src/core/model/records';
import { turnTicker } from '../../../../support/eventLoopTurns';
import { storeFolderPerTest } from '../fixtures/storeFolder';

/**
 * Reopening a long session lists its requests' figures (two usage records a turn: 9,000 at 4,500
 * turns): their bodies are parsed a slice at a time with turns of the event loop between them, so
 * the extension host is not held for the whole list, and the list is the same.
 */
const SESSION = 'susage';
const COUNT = 4_000;
const MODEL = 'slice-model';

const record = (i: number, extra: Partial<RequestUsageRecord> = {}): RequestUsageRecord => ({
  id: `u${i}`, sessionId: SESSION, requestIndex: i, createdAt: 1_000 + i, model: MODEL, contextWindow: 200_000, maxOutputTokens: 8_192,
  components: { system: 900, skills: 0, tools: 1_200, messages: 200 * (i % 80), toolResults: 0, summaries: 0 }, estimatedInputTokens: 2_100 + 200 * (i % 80),
  items: [{ messageId: `m${i}`, role: 'tool', kind: 'tool_result', tokens: 200, badges: [], preview: 'npm test' }], ...extra,
});

/** Calls `list` while counting, between turns of the event loop, the JSON bodies parsed that name the marker model. */
async function mostParsedWithoutATurn<T>(list: () => Promise<T>): Promise<{ result: T; most: number }> {
  const original = JSON.parse;
  const ticker = turnTicker();
  let lastTurn = -1;
  let sinceTurn = 0;
  let most = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof text === 'string' && text.length < 10_000 && text.includes(MODEL)) {
      if (ticker.now() !== lastTurn) [lastTurn, sinceTurn] = [ticker.now(), 0];
      most = Math.max(most, ++sinceTurn);
    }
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    return { result: await list(), most };
  } finally {
    JSON.parse = original;
    ticker.stop();
  }
}

describe("listing a long session's request figures", function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-usage-slices-');

  it('parses the usage bodies in slices with turns of the event loop between them, and lists every request once, in order, the latest copy of each', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, sync: false });
    await writing.createSession({ id: SESSION, title: 'long' });
    for (let i = 0; i < COUNT; i++) {
      await writing.addRequestUsage(record(i));
      if (i % 500 === 499) await writing.flush();
    }
    await writing.addRequestUsage(record(7, { estimatedInputTokens: 77_777 })); // written again, in a later segment
    await writing.close();

    for (const read of ['first read (segments opened)', 'second read (their recorded facts)']) {
      const store = await stores.openStore(folder, { debounceMs: 1e9 });
      const { result, most } = await mostParsedWithoutATurn(() => store.listRequestUsage(SESSION, { items: false }));
      assert.equal(result.length, COUNT, read);
      assert.deepEqual(result.slice(0, 3).map((r) => r.requestIndex), [0, 1, 2], read);
      assert.equal(result[7].estimatedInputTokens, 77_777, `${read}: the latest copy of a record written again`);
      assert.ok(result.every((r, i) => r.requestIndex === i && r.items.length === 0 && !('storedItems' in r)), `${read}: every request once, in order, figures only`);
      assert.ok(most > 0 && most <= COUNT / 4, `${read}: ${most} of ${COUNT} usage bodies parsed without a turn of the event loop`);
      await store.close();
    }
  });
});
