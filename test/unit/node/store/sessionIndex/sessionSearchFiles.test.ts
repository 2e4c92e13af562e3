import { strict as assert } from 'assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { toolResultMessage, userMessage } from '../../../../../src/core/model/factories';
import { segmentsReadDuring } from '../fixtures/filesRead';
import type { Message } from '../../../../../src/core/model/message';
import { openStore } from '../../../../../src/node/store';

let clock = Date.UTC(2026, 10, 2);
function stamped(message: Message): Message {
  return { ...message, createdAt: ++clock };
}

type Store = Awaited<ReturnType<typeof openStore>>;

async function session(store: Store, title: string, text: string): Promise<string> {
  const info = await store.createSession({ title, updatedAt: ++clock });
  await store.putMessages(info.id, [stamped(userMessage(text))]);
  return info.id;
}

function searchFiles(folder: string): string[] {
  return readdirSync(join(folder, 'index')).filter((n) => /\.search\d+\.sqlite$/.test(n));
}

/** Keeps the file's first page (its header and schema) and overwrites every page after it: the search tables' pages are garbage. */
function damagePagesAfterFirst(path: string): void {
  const bytes = readFileSync(path);
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65_536 : bytes.readUInt16BE(16);
  assert.ok(bytes.length > pageSize, 'the file has pages beyond the first');
  bytes.fill(0xa5, pageSize);
  writeFileSync(path, bytes);
}

describe('session search files from other windows (real sql.js files)', function () {
  this.timeout(60_000);
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'tally-search-files-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('a damaged search file is set aside and reported once; the other sessions are still found, and the damaged one by its title', async () => {
    const first = await openStore(folder, { debounceMs: 5 });
    const damagedOne = await session(first, 'Parser rewrite', 'the websocket parser drops frames');
    await first.close();
    const [damagedName] = searchFiles(folder);
    const second = await openStore(folder, { debounceMs: 5 });
    const healthy = await session(second, 'Reconnect', 'the websocket reconnect loop spins');
    await second.close();
    damagePagesAfterFirst(join(folder, 'index', damagedName));

    const third = await openStore(folder, { debounceMs: 60_000 });
    try {
      const hits = await third.searchSessions('websocket');
      assert.deepEqual(hits.map((h) => h.session.id), [healthy], 'the sessions indexed in the healthy file are found');
      const corrupt = third.problems.filter((p) => p.kind === 'corrupt');
      assert.equal(corrupt.length, 1, JSON.stringify(third.problems));
      assert.equal(corrupt[0].file, join(folder, 'index', damagedName));
      assert.match(corrupt[0].message, /malformed|corrupt|not a database/i, 'says what is wrong with the file');
      assert.ok(corrupt[0].movedTo && statSync(corrupt[0].movedTo).isFile(), 'the damaged file is kept aside for inspection');
      assert.ok(!searchFiles(folder).includes(damagedName), 'no longer read as a search file');

      assert.deepEqual((await third.searchSessions('websocket')).map((h) => h.session.id), [healthy], 'the next search goes on without it');
      assert.deepEqual((await third.searchSessions('parser rewrite')).map((h) => h.session.id), [damagedOne], 'found by its title');
      assert.equal(third.problems.filter((p) => p.kind === 'corrupt').length, 1, 'reported once');
      assert.match((await third.loadTranscript(damagedOne))[0]?.content ?? '', /drops frames/, 'the session itself loses nothing');
    } finally {
      await third.close();
    }
  });

  it('a search file with a damaged header is set aside the same way', async () => {
    const first = await openStore(folder, { debounceMs: 5 });
    await session(first, 'Old window', 'gradle daemon crashed');
    await first.close();
    const second = await openStore(folder, { debounceMs: 5 });
    const healthy = await session(second, 'New window', 'gradle cache warmed');
    await second.close();
    const damaged = searchFiles(folder).map((n) => join(folder, 'index', n)).find((path) => readFileSync(path).includes('daemon'));
    assert.ok(damaged);
    writeFileSync(damaged, Buffer.alloc(statSync(damaged).size, 0x42));

    const third = await openStore(folder);
    try {
      assert.deepEqual((await third.searchSessions('gradle')).map((h) => h.session.id), [healthy]);
      assert.equal(third.problems.filter((p) => p.kind === 'corrupt' && p.file === damaged).length, 1, JSON.stringify(third.problems));
    } finally {
      await third.close();
    }
  });

  it('searches while this window writes and saves find what was written before them, and everything once the writes are done', async () => {
    const other = await openStore(folder, { debounceMs: 5 });
    const earlier = await session(other, 'Earlier window', 'kestrel telemetry exporter');
    await other.close();
    const store = await openStore(folder, { debounceMs: 1 });
    try {
      const written: string[] = [];
      const writes = (async () => {
        for (let i = 0; i < 30; i++) {
          written.push(await session(store, `Run ${i}`, `kestrel telemetry batch ${i} ` + 'payload words '.repeat(40)));
          if (i % 10 === 9) await store.flush();
        }
      })();
      let searches = 0;
      let done = false;
      void writes.finally(() => (done = true));
      while (!done) {
        const before = new Set(written);
        const found = new Set((await store.searchSessions('kestrel telemetry', { limit: 100 })).map((h) => h.session.id));
        searches++;
        assert.ok(found.has(earlier), "the other window's session is found during the writes");
        for (const id of before) assert.ok(found.has(id), `a session written before the search began is found (${id})`);
      }
      await writes;
      assert.ok(searches > 1, 'searches ran while the writes did');
      const all = (await store.searchSessions('kestrel telemetry', { limit: 100 })).map((h) => h.session.id);
      assert.deepEqual(new Set(all), new Set([earlier, ...written]));
    } finally {
      await store.close();
    }
  });
});

describe('sessions written before search existed (real sql.js files)', function () {
  this.timeout(60_000);
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'tally-search-backfill-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('are indexed from their stored messages after the first search, once: a later window finds them without indexing again', async () => {
    const older = await openStore(folder, { debounceMs: 5 });
    const oldIds: string[] = [];
    for (let i = 0; i < 5; i++) oldIds.push(await session(older, `Older ${i}`, `the heron pipeline stalled at stage ${i}`));
    // A session with nothing to index (tool output only): read by the backfill, never found by text.
    const toolOnly = await older.createSession({ title: 'Tool output only', updatedAt: ++clock });
    const call = { id: 'call-1', name: 'read_file', arguments: '{}' };
    await older.putMessages(toolOnly.id, [stamped(toolResultMessage(call, 'heron pipeline log'))]);
    await older.close();
    // As an earlier Tally left the folder: sessions and their messages, no search files.
    for (const name of searchFiles(folder)) rmSync(join(folder, 'index', name));

    const upgraded = await openStore(folder, { debounceMs: 5 });
    try {
      const first = await upgraded.searchSessions('heron pipeline');
      assert.ok(first.every((h) => oldIds.includes(h.session.id)));
      await upgraded.olderSessionsIndexed();
      const hits = await upgraded.searchSessions('heron pipeline');
      assert.deepEqual(new Set(hits.map((h) => h.session.id)), new Set(oldIds), 'every older session is found by its text');
      assert.ok(hits.every((h) => /«heron» «pipeline»/.test(h.snippet ?? '')), 'with the words around the match');
    } finally {
      await upgraded.close();
    }
    const indexedBy = new Set(searchFiles(folder));

    const later = await openStore(folder, { debounceMs: 5 });
    try {
      const { read } = await segmentsReadDuring(async () => {
        assert.deepEqual(new Set((await later.searchSessions('stalled stage')).map((h) => h.session.id)), new Set(oldIds));
        await later.olderSessionsIndexed();
      });
      assert.deepEqual(read, [], "the later window reads no session's messages: the older sessions were indexed once");
    } finally {
      await later.close();
    }
    assert.deepEqual(new Set(searchFiles(folder)), indexedBy, 'and writes no search file');
  });
});
