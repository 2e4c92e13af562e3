import { strict as assert } from 'assert';
import { mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../../src/core/model/factories';
import type { Message } from '../../../../../src/core/model/message';
import { openStore } from '../../../../../src/node/store';
import { ftsQuery } from '../../../../../src/node/store/sessionIndex/sessionSearch';

let clock = Date.UTC(2026, 10, 1);
function stamped(message: Message): Message {
  return { ...message, createdAt: ++clock };
}

describe('session search (real sql.js files)', function () {
  this.timeout(60_000);
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'tally-search-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  async function session(store: Awaited<ReturnType<typeof openStore>>, title: string, messages: Message[], updatedAt = ++clock) {
    const info = await store.createSession({ title, updatedAt });
    await store.putMessages(info.id, messages.map(stamped));
    return info.id;
  }

  it('finds titles as typed, whatever their quotes, %, _ or non-ASCII letters, and never takes % or _ as wildcards', async () => {
    const store = await openStore(folder, { debounceMs: 5 });
    try {
      const quoted = await session(store, 'Fix "parser" it\'s broken', []);
      const percent = await session(store, 'Coverage at 100% for utils', []);
      const underscore = await session(store, 'Rename load_config', []);
      const accented = await session(store, 'Réviser la fonction Straße', []);
      await session(store, 'Something else entirely', []);
      const ids = async (q: string) => (await store.searchSessions(q)).map((h) => h.session.id);
      assert.deepEqual(await ids('"parser"'), [quoted]);
      assert.deepEqual(await ids("it's"), [quoted]);
      assert.deepEqual(await ids('100%'), [percent]);
      assert.deepEqual(await ids('%'), [percent], '% matches only a title holding %');
      assert.deepEqual(await ids('_'), [underscore], '_ matches only a title holding _');
      assert.deepEqual(await ids('load_config'), [underscore]);
      assert.deepEqual(await ids('RÉVISER'), [accented], 'any case, beyond ASCII');
      assert.deepEqual(await ids('straße'), [accented]);
      assert.deepEqual(await ids('   '), [], 'a blank search finds nothing');
      assert.ok((await store.searchSessions('parser')).every((h) => h.matchedTitle));
    } finally {
      await store.close();
    }
  });

  it("finds the user's and the model's text with the words around it, not tool output, not deleted sessions", async () => {
    const store = await openStore(folder, { debounceMs: 5 });
    try {
      const call = { id: 'call-1', name: 'read_file', arguments: '{}' };
      const texts = await session(store, 'Release job', [userMessage('Why did the release job fail on the arm64 runner yesterday?'), assistantMessage('The linker ran out of memory while building the débogage symbols.', [call]), toolResultMessage(call, 'kubernetes secret token zebra')]);
      const gone = await session(store, 'Old', [userMessage('arm64 runner notes')]);
      await store.deleteSession(gone);
      const [hit, ...rest] = await store.searchSessions('arm64 runner');
      assert.deepEqual(rest, [], 'the deleted session is not found');
      assert.equal(hit.session.id, texts);
      assert.equal(hit.matchedTitle, false);
      assert.match(hit.snippet ?? '', /«arm64» «runner»/);
      assert.ok(hit.at && hit.at > 0);
      assert.equal((await store.searchSessions('linker memory'))[0]?.session.id, texts, 'every word, anywhere in one message');
      assert.equal((await store.searchSessions('link')).length, 1, 'the last part of a word as a prefix');
      assert.equal((await store.searchSessions('debogage')).length, 1, 'diacritics folded');
      assert.deepEqual(await store.searchSessions('zebra'), [], 'tool output is not searched');
      assert.deepEqual(await store.searchSessions('linker zebra'), [], 'a word no message holds');
    } finally {
      await store.close();
    }
  });

  it("another window's sessions are found from its own search file; this window's before they are saved", async () => {
    const first = await openStore(folder, { debounceMs: 5 });
    const earlier = await session(first, 'First window', [userMessage('flaky websocket reconnect test')]);
    await first.close();
    assert.ok(readdirSync(join(folder, 'index')).some((n) => /\.search\d+\.sqlite$/.test(n)), 'the search index is a file of its own');
    const second = await openStore(folder, { debounceMs: 60_000 });
    try {
      const now = await session(second, 'Second window', [userMessage('websocket keepalive interval')]);
      assert.deepEqual((await second.searchSessions('websocket')).map((h) => h.session.id), [now, earlier], 'newest first');
      assert.deepEqual((await second.searchSessions('flaky')).map((h) => h.session.id), [earlier]);
    } finally {
      await second.close();
    }
  });

  it('starts a new search file past 2 MiB (sql.js saves a file whole), and a search reads every one', async () => {
    const store = await openStore(folder, { debounceMs: 5 });
    try {
      const filler = (i: number) => `build step ${i} ` + 'compiling module linking objects '.repeat(110);
      const firstId = await session(store, 'Early', [userMessage('the quokka benchmark regressed')]);
      for (let i = 0; i < 12; i++) await session(store, `Bulk ${i}`, Array.from({ length: 60 }, (_, j) => userMessage(filler(i * 60 + j))));
      const lastId = await session(store, 'Late', [userMessage('the quokka benchmark recovered')]);
      await store.flush();
      const files = readdirSync(join(folder, 'index')).filter((n) => /\.search\d+\.sqlite$/.test(n));
      assert.ok(files.length >= 2, `several search files: ${files.join(', ')}`);
      assert.deepEqual((await store.searchSessions('quokka')).map((h) => h.session.id), [lastId, firstId]);
    } finally {
      await store.close();
    }
  });

  it('turns what was typed into an FTS4 query of words, never its operators', () => {
    assert.equal(ftsQuery('parser'), '"parser*"');
    assert.equal(ftsQuery('load_config "x" OR NEAR(y)'), '"load config*" "x*" "OR*" "NEAR y*"');
    assert.equal(ftsQuery('% _ -'), undefined);
    assert.equal(ftsQuery('Straße 東京'), '"Straße*" "東京*"');
  });
});
