import { strict as assert } from 'assert';
import { createHash } from 'crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import type { Database } from 'sql.js';
import { nodeWriteFs, type WriteFs } from '../../../../src/node/store/files/atomicFile';
import type { StoreOptions } from '../../../../src/node/store';
import { storeFolderPerTest } from './fixtures/storeFolder';
import { sqlRuntime } from '../../../../src/node/store/sql/sqlRuntime';
import { StoreOpener } from '../../../../src/node/store/storeOpener';
import type { Message } from '../../../../src/core/model/message';

function message(id: string, createdAt: number): Message {
  return { id, role: 'user', kind: 'user', content: `message ${id}`, agentVisible: true, userVisible: true, createdAt };
}

/** Saves without fsync: these tests write thousands of small files and test listing, not durability. */
const quickFs: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => writeFileSync(path, data), syncDirectory: async () => undefined };

function hashTree(dir: string): string {
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'writers') continue;
      const path = join(at, entry.name);
      hash.update(path);
      if (entry.isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

describe('store at scale and in a hostile environment', function () {
  this.timeout(300_000);
  const stores = storeFolderPerTest('tally-scale-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  /** `count` sessions created by one window, saved in batches, then that window closed. */
  async function createSessions(count: number, options: StoreOptions = {}): Promise<Map<string, string>> {
    const store = await openStore(folder, { debounceMs: 1e9, fs: quickFs, maxOpenDatabases: 64, ...options });
    const titles = new Map<string, string>();
    for (let i = 0; i < count; i++) {
      const session = await store.createSession({ title: `session ${i}`, createdAt: i });
      titles.set(session.id, session.title);
      if (i % 50 === 49) await store.flush();
    }
    await store.close();
    assert.ok(store.openDatabases.peak <= 64, `the creating window had at most 64 databases open (peak ${store.openDatabases.peak})`);
    return titles;
  }

  // How fast the listing is, bench/storeScale.bench.ts measures; here, what it lists and what it holds open.
  it('lists 5,000 sessions correctly, never holding more databases open than its bound', async () => {
    const titles = await createSessions(5_000);
    const store = await openStore(folder, { maxOpenDatabases: 64 });
    const listed = await store.listSessions();
    assert.equal(listed.length, 5_000);
    assert.deepEqual(new Map(listed.map((s) => [s.id, s.title])), titles);
    assert.deepEqual(store.problems, [], 'no healthy file was taken for damaged');
    // Opening sessions one after another never grows the open databases past the bound.
    for (const session of listed.slice(0, 300)) assert.equal((await store.getSession(session.id))?.title, session.title);
    assert.ok(store.openDatabases.peak <= 64, `peak ${store.openDatabases.peak} open databases`);
  });

  it('a resource error while opening a file (sql.js out of handles) sets nothing aside and says what happened', async () => {
    let store = await openStore(folder, { debounceMs: 5 });
    const session = await store.createSession({ title: 'healthy' });
    await store.putMessages(session.id, [message('h1', 1)]);
    await store.close();

    const log: string[] = [];
    store = await openStore(folder, { log: (line) => log.push(line) });
    const before = hashTree(folder);
    // Exhaust sql.js's in-memory file handles, as thousands of open databases once did.
    const SQL = await sqlRuntime();
    const hogs: Database[] = [];
    try {
      for (;;) hogs.push(new SQL.Database());
    } catch {
      // out of handles
    }
    try {
      assert.deepEqual(await store.loadTranscript(session.id), []);
    } finally {
      for (const db of hogs) db.close();
    }
    assert.equal(hashTree(folder), before, 'no file was renamed or changed');
    assert.deepEqual(store.problems.map((p) => p.kind), ['read-failed']);
    assert.doesNotMatch(store.problems[0].message, /object Object/);
    assert.match(store.problems[0].message, /sql\.js file system error/);
    assert.ok(log.every((line) => !line.includes('[object Object]')), log.join('\n'));
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['h1'], 'read again once handles are free');
  });

  it('a missing session index is rebuilt from the session folders, and a stale one mends itself', async () => {
    const titles = await createSessions(300);
    rmSync(join(folder, 'index'), { recursive: true, force: true });
    let store = await openStore(folder, { debounceMs: 5 });
    let listed = await store.listSessions();
    assert.deepEqual(new Map(listed.map((s) => [s.id, s.title])), titles, 'rebuilt from the folders');
    await store.close();
    assert.ok(readdirSync(join(folder, 'index')).some((name) => name === `${store.writer}.base.sqlite`), 'the rebuilt index is saved');

    // Stale: a session written without the index (an older Tally), and a folder removed by hand.
    const older = await openStore(folder, { debounceMs: 5 });
    const added = await older.createSession({ title: 'written without the index' });
    await older.close();
    rmSync(join(folder, 'index', `${older.writer}.delta.sqlite`));
    const removed = listed[0].id;
    rmSync(join(folder, 'sessions', removed), { recursive: true });
    store = await openStore(folder, { debounceMs: 5 });
    listed = await store.listSessions();
    assert.ok(listed.some((s) => s.id === added.id && s.title === 'written without the index'), 'a folder the index missed is listed');
    assert.ok(!listed.some((s) => s.id === removed), 'a removed folder is not listed');
    assert.equal(listed.length, 300);
  });

  it('two windows creating sessions at the same time each list the other’s', async () => {
    const a = await openStore(folder, { debounceMs: 5 });
    const b = await openStore(folder, { debounceMs: 5 });
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).createSession({ title: `t${i}` })));
    await Promise.all([a.flush(), b.flush()]);
    const ids = created.map((s) => s.id).sort();
    assert.deepEqual((await a.listSessions()).map((s) => s.id).sort(), ids);
    assert.deepEqual((await b.listSessions()).map((s) => s.id).sort(), ids);
    await a.updateSession(created[0].id, { title: 'renamed in a' });
    await b.deleteSession(created[1].id);
    await Promise.all([a.flush(), b.flush()]);
    const inB = await b.listSessions();
    assert.equal(inB.find((s) => s.id === created[0].id)?.title, 'renamed in a');
    assert.ok(!(await a.listSessions()).some((s) => s.id === created[1].id), 'a deletion in b is seen by a');
  });

  it('a failed open (disk full while the window starts) is tried again, not kept', async () => {
    let attempts = 0;
    const opener = new StoreOpener(async () => {
      if (++attempts === 1) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      return openStore(folder);
    });
    await assert.rejects(opener.get(), /ENOSPC/);
    const store = await opener.get();
    const session = await store.createSession({ title: 'after the disk freed' });
    assert.equal((await store.getSession(session.id))?.title, 'after the disk freed');
    assert.equal(attempts, 2);
  });

  it('a read-only store folder: sessions are read, changes stay in memory, one clear problem', async () => {
    let store = await openStore(folder, { debounceMs: 5 });
    const session = await store.createSession({ title: 'kept' });
    await store.putMessages(session.id, [message('k1', 1)]);
    await store.close();
    const before = hashTree(folder);
    const denied = async () => {
      throw Object.assign(new Error(`EACCES: permission denied, open '${folder}'`), { code: 'EACCES' });
    };
    store = await openStore(folder, { debounceMs: 5, probeWrite: denied, fs: { ...nodeWriteFs, writeFileSynced: denied } });
    assert.equal(store.mode, 'read-only');
    assert.deepEqual(store.problems.map((p) => p.kind), ['read-only']);
    assert.ok(store.problems[0].message.includes(folder), 'says where');
    assert.match(store.problems[0].message, /cannot be written .*EACCES.*kept in memory only/);
    assert.deepEqual((await store.listSessions()).map((s) => s.title), ['kept']);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['k1']);
    const fresh = await store.createSession({ title: 'in memory' });
    await store.putMessages(fresh.id, [message('n1', 2)]);
    await store.flush();
    assert.deepEqual((await store.loadTranscript(fresh.id)).map((m) => m.id), ['n1']);
    assert.deepEqual((await store.listSessions()).map((s) => s.title).sort(), ['in memory', 'kept']);
    assert.equal(store.problems.length, 1, 'reported once, not on every save');
    await store.close();
    assert.equal(hashTree(folder), before, 'nothing on disk changed');
  });

  it('a file where the store folder should be: an in-memory store, and one clear problem', async () => {
    const path = join(folder, 'store');
    writeFileSync(path, 'not a folder');
    const store = await openStore(path, { debounceMs: 5 });
    assert.equal(store.mode, 'in-memory');
    assert.deepEqual(store.problems.map((p) => p.kind), ['in-memory']);
    assert.ok(store.problems[0].message.includes(path), 'says where');
    assert.match(store.problems[0].message, /cannot be used .*kept in memory only/);
    const session = await store.createSession({ title: 'in memory' });
    await store.putMessages(session.id, [message('m1', 1)]);
    await store.flush();
    assert.deepEqual((await store.listSessions()).map((s) => s.title), ['in memory']);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['m1']);
    assert.equal(store.problems.length, 1);
    await store.close();
    assert.equal(readFileSync(path, 'utf8'), 'not a folder');
  });
});
