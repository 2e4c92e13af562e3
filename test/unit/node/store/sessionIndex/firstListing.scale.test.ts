import { strict as assert } from 'assert';
import { readdirSync } from 'fs';
import { join } from 'path';
import { ABSORB_INDEX_MIN_FILES } from '../../../../../src/node/store/sessionIndex/sessionIndex';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { filesReadDuring } from '../fixtures/filesRead';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSIONS = 1_500;

describe('the first listing of sessions in a new window', function () {
  this.timeout(180_000);
  const stores = storeFolderPerTest('tally-first-listing-');

  it('reads the closed window’s session index once and lists from it as it is, without rewriting it; several closed windows’ files are merged into one', async () => {
    const folder = stores.folder();
    const indexFiles = () => readdirSync(join(folder, 'index')).filter((n) => n.endsWith('.sqlite'));
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    for (let i = 0; i < SESSIONS; i++) await first.createSession({ title: `session ${i}`, createdAt: i });
    await first.close();
    const left = indexFiles();

    const second = await stores.openStore(folder, { debounceMs: 1e9 });
    const { result: listed, read } = await filesReadDuring(async () => {
      const list = await second.listSessions();
      await second.close(); // after the merge of closed windows' index files, had it anything to do
      return list;
    }, /[\\/]index[\\/].*\.sqlite$/);
    assert.equal(listed.length, SESSIONS);
    assert.deepEqual(read.map((p) => p.split(/[\\/]/).pop()), left, 'each closed window’s index file read once');
    assert.deepEqual(indexFiles().filter((n) => n.startsWith(second.writer)), [], 'nothing rewritten to the new window’s index');

    // Windows restarted again and again: their files are merged into one once there are several.
    const restarts = ABSORB_INDEX_MIN_FILES - 1;
    for (let w = 0; w < restarts; w++) {
      const window = await stores.openStore(folder, { debounceMs: 1e9 });
      await window.createSession({ title: `window ${w}`, createdAt: SESSIONS + w });
      await window.close();
    }
    assert.equal(indexFiles().length, ABSORB_INDEX_MIN_FILES, 'each window left its file: none merged while they were fewer');
    const merging = await stores.openStore(folder, { debounceMs: 1e9 });
    assert.equal((await merging.listSessions()).length, SESSIONS + restarts);
    await merging.close();
    assert.deepEqual(indexFiles().filter((n) => !n.startsWith(merging.writer)), [], 'the closed windows’ files merged and removed');
    const last = await stores.openStore(folder, { debounceMs: 1e9 });
    const final = await last.listSessions();
    assert.equal(final.length, SESSIONS + restarts);
    assert.deepEqual(final.slice(-2).map((s) => s.title), [`window ${restarts - 2}`, `window ${restarts - 1}`]);
  });

  it('reads the closed window’s session rows in one pass of one query, however many sessions it lists', async () => {
    const folder = stores.folder();
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    for (let i = 0; i < SESSIONS; i++) await first.createSession({ title: `session ${i}`, createdAt: i });
    await first.close();

    const second = await stores.openStore(folder, { debounceMs: 1e9 });
    const { Database } = await sqlRuntime();
    const prepare = Database.prototype.prepare;
    const queries: string[] = [];
    Database.prototype.prepare = function (this: InstanceType<typeof Database>, sql: string, ...rest: unknown[]) {
      if (/FROM sessions\b/.test(sql) && !/WHERE/.test(sql)) queries.push(sql);
      return (prepare as (...a: unknown[]) => ReturnType<typeof prepare>).call(this, sql, ...rest);
    } as typeof prepare;
    try {
      assert.equal((await second.listSessions()).length, SESSIONS);
    } finally {
      Database.prototype.prepare = prepare;
      await second.close();
    }
    assert.equal(queries.length, 1, `one query over the index file's rows (ran ${queries.length})`);
  });
});
