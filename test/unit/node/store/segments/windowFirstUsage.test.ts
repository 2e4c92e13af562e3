import { strict as assert } from 'assert';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { RequestItem, RequestUsageRecord } from '../../../../../src/core/model/records';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { parsesDuring } from '../fixtures/jsonParses';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'sfirst';
const item = (id: string, tokens: number): RequestItem => ({ messageId: id, role: 'tool', kind: 'tool_result', tokens, badges: [], preview: `output of ${id} `.repeat(6) });

function usage(index: number, items: RequestItem[]): RequestUsageRecord {
  return {
    id: `u${index}`, sessionId: SESSION, requestIndex: index, createdAt: index, model: 'm', contextWindow: 200_000, maxOutputTokens: 8_000,
    components: { system: 1, skills: 0, tools: 0, messages: 0, toolResults: items.length, summaries: 0 }, estimatedInputTokens: items.length, items,
  };
}

/** The stored body of usage record `id`, in bytes, read from the session's files as sql.js finds it on disk. */
async function storedBytes(folder: string, id: string): Promise<number> {
  const SQL = await sqlRuntime();
  const dir = join(folder, 'sessions', SESSION);
  for (const name of readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n))) {
    const db = new SQL.Database(readFileSync(join(dir, name)));
    try {
      const found = db.exec('SELECT length(CAST(body AS BLOB)) FROM turn_usage WHERE id = ?', [id]);
      if (found.length > 0) return Number(found[0].values[0][0]);
    } finally {
      db.close();
    }
  }
  throw new Error(`no usage record ${id}`);
}

describe('a window’s first usage record of a session', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-first-usage-');

  it('is stored as the change from the list the session left off with, not the whole list, and reads back exactly', async () => {
    const folder = stores.folder();
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    await first.createSession({ id: SESSION, title: 'two windows' });
    let items: RequestItem[] = [];
    for (let i = 0; i < 400; i++) {
      items = [...items, item(`a${i}`, 40), item(`t${i}`, 400)];
      await first.addRequestUsage(usage(i, items));
    }
    await first.close();
    const wholeList = JSON.stringify(items).length;
    assert.ok(wholeList > 100_000, `a list of ${wholeList} bytes`);

    const second = await stores.openStore(folder, { debounceMs: 1e9 });
    const next = [...items, item('b400', 50)];
    await second.addRequestUsage(usage(400, next));
    await second.close();

    const bytes = await storedBytes(folder, 'u400');
    assert.ok(bytes <= 4 * 1024 + JSON.stringify(item('b400', 50)).length, `the first record of the new window is ${bytes} bytes (the whole list is ${wholeList})`);
    const reader = await stores.openStore(folder, { debounceMs: 1e9 });
    assert.deepEqual((await reader.requestUsageAt(SESSION, 400))?.items, next);
    const all = await reader.listRequestUsage(SESSION);
    assert.deepEqual(all[400].items, next);
    assert.deepEqual(all[399].items, items);
  });

  it('rests on the list the window read when it opened the session, without reading the stored records again', async () => {
    const folder = stores.folder();
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    await first.createSession({ id: SESSION, title: 'reopened' });
    let items: RequestItem[] = [];
    for (let i = 0; i < 300; i++) {
      items = [...items, item(`a${i}`, 40), item(`t${i}`, 400)];
      await first.addRequestUsage(usage(i, items));
    }
    await first.close();

    const second = await stores.openStore(folder, { debounceMs: 1e9 });
    // The chat and the inspector show the latest request's figures when the session opens.
    const { parsed: onOpen } = await parsesDuring(() => second.requestUsageAt(SESSION, 299), '"requestIndex"');
    assert.ok(onOpen >= 300, `the open replayed the chain (${onOpen} records)`);
    const next = [...items, item('b300', 50)];
    const { parsed } = await parsesDuring(() => second.addRequestUsage(usage(300, next)), '"requestIndex"');
    assert.equal(parsed, 0, 'the first record of the window read no stored record');
    await second.close();

    assert.ok((await storedBytes(folder, 'u300')) <= 4 * 1024, 'stored as a change');
    const reader = await stores.openStore(folder, { debounceMs: 1e9 });
    assert.deepEqual((await reader.requestUsageAt(SESSION, 300))?.items, next);
  });

  it('of a session with no usage yet is a full list', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    await store.createSession({ id: SESSION, title: 'new' });
    await store.addRequestUsage(usage(0, [item('a', 1)]));
    await store.close();
    const reader = await stores.openStore(folder, { debounceMs: 1e9 });
    assert.deepEqual((await reader.requestUsageAt(SESSION, 0))?.items, [item('a', 1)]);
  });
});
