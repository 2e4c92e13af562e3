import { strict as assert } from 'assert';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { Database } from 'sql.js';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { storeFolderPerTest } from '../fixtures/storeFolder';
import type { Message } from '../../../../../src/core/model/message';

const message = (id: string, at: number): Message => ({ id, role: 'user', kind: 'user', content: `text ${id}`, agentVisible: true, userVisible: true, createdAt: at });

describe('store inserts reuse prepared statements', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-prepared-');

  it('prepares an insert once per save, not once per row, and keeps working after each save', async () => {
    const SQL = await sqlRuntime();
    const proto = SQL.Database.prototype as Database;
    const original = proto.prepare;
    let prepared = 0;
    proto.prepare = function (this: Database, ...args: Parameters<Database['prepare']>) {
      if (String(args[0]).startsWith('INSERT OR REPLACE INTO messages')) prepared++;
      return original.apply(this, args);
    };
    try {
      const store = await stores.openStore(stores.folder(), { debounceMs: 1e9 });
      const session = await store.createSession({ title: 'rows' });
      for (let i = 0; i < 200; i++) await store.putMessages(session.id, [message(`m${i}`, i)]);
      assert.equal(prepared, 1, '200 single-message inserts, one prepared statement');
      await store.flush(); // exporting frees a database's statements: the next insert prepares again
      for (let i = 200; i < 300; i++) await store.putMessages(session.id, [message(`m${i}`, i)]);
      assert.equal(prepared, 2);
      await store.close();
      const reopened = await stores.openStore(stores.folder());
      assert.equal((await reopened.loadTranscript(session.id)).length, 300, 'every row saved');
    } finally {
      proto.prepare = original;
    }
  });

  it('keeps its connection settings after each save: journal in memory, no sync, one lock', async () => {
    const SQL = await sqlRuntime();
    const proto = SQL.Database.prototype as Database;
    const original = proto.export;
    const exported = new Set<Database>();
    proto.export = function (this: Database) {
      exported.add(this);
      return original.apply(this);
    };
    const setting = (db: Database, name: string) => String(db.exec(`PRAGMA ${name}`)[0].values[0][0]);
    try {
      const store = await stores.openStore(stores.folder(), { debounceMs: 1e9 });
      const session = await store.createSession({ title: 'settings' });
      await store.putMessages(session.id, [message('m0', 0)]);
      await store.flush(); // sql.js's export closes and reopens the connection
      assert.ok(exported.size >= 2, 'the session index and the segment were saved');
      for (const db of exported) {
        assert.equal(setting(db, 'journal_mode'), 'memory');
        assert.equal(setting(db, 'synchronous'), '0');
        assert.equal(setting(db, 'locking_mode'), 'exclusive');
      }
      await store.putMessages(session.id, [message('m1', 1)]);
      await store.close();
      const reopened = await stores.openStore(stores.folder());
      assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['m0', 'm1']);
    } finally {
      proto.export = original;
    }
  });

  it('writes bodies as text, character for character: emoji, CJK, escapes, NUL and a lone surrogate come back the same', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const session = await store.createSession({ title: 'text' });
    const content = 'emoji 😀👩‍💻 CJK 漢字かな "quoted" \\ back\nslash \u0000 NUL:\u0000 lone:\ud800 end';
    await store.putMessages(session.id, [{ ...message('m0', 1), content, pinned: true }]);
    await store.saveSnapshot({ sessionId: session.id, compactionId: 'c1', tokenCount: 5, createdAt: 1, messages: [{ ...message('m0', 1), content }] });
    await store.close();
    const reopened = await stores.openStore(folder);
    const [back] = await reopened.loadTranscript(session.id);
    assert.equal(back.content, content);
    assert.equal((await reopened.loadSnapshot(session.id))?.messages[0].content, content);
    assert.deepEqual([...(await reopened.loadPins(session.id, 10))], [['m0', true]], 'SQL text functions read the stored body');
    const SQL = await sqlRuntime();
    const dir = join(folder, 'sessions', session.id);
    const segment = readdirSync(dir).find((n) => /\.seg\d+\.sqlite$/.test(n))!;
    const db = new SQL.Database(readFileSync(join(dir, segment)));
    try {
      assert.equal(db.exec('SELECT typeof(body) FROM messages')[0].values[0][0], 'text');
    } finally {
      db.close();
    }
  });
});
