import { strict as assert } from 'assert';
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { nodeWriteFs, type WriteFs } from '../../../../src/node/store/files/atomicFile';
import { sqlRuntime } from '../../../../src/node/store/sql/sqlRuntime';
import { storeFolderPerTest } from './fixtures/storeFolder';
import { fileHash, filesUnder, message } from './fixtures/storeFiles';

describe('sql.js store', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-store-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  it('round-trips every kind of record through close and reopen', async () => {
    let store = await openStore(folder, { debounceMs: 5 });
    const session = await store.createSession({ title: 'first', origin: 'chat' });
    await store.putMessages(session.id, [message('m1', 1), message('m2', 2)]);
    await store.putMessages(session.id, [{ ...message('m1', 1), pinned: true }]);
    const blob = await store.putBlob(session.id, { toolName: 'run_command', content: Buffer.from('line1\nline2\n') });
    await store.saveSnapshot({ sessionId: session.id, messages: [message('m2', 2)], tokenCount: 42, compactionId: 'c1', createdAt: 2 });
    await store.addCompactionEvent({ id: 'c1', sessionId: session.id, trigger: 'manual', status: 'complete', strategies: ['tool-result-masking'], tokensBefore: 100, tokensAfter: 40, messagesBefore: 2, messagesAfter: 1, startedAt: 5, durationMs: 3, removed: [] });
    await store.addRequestUsage({ id: 'u1', sessionId: session.id, requestIndex: 0, createdAt: 6, model: 'm', contextWindow: 1000, maxOutputTokens: 100, components: { system: 1, skills: 0, tools: 2, messages: 3, toolResults: 4, summaries: 0 }, estimatedInputTokens: 10, reportedInputTokens: 12, items: [] });
    await store.updateSession(session.id, { title: 'renamed' });
    await store.close();
    assert.deepEqual(filesUnder(folder).filter((f) => f.includes('.tmp-')), [], 'no temp files left');

    store = await openStore(folder);
    assert.equal((await store.getSession(session.id))?.title, 'renamed');
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => [m.id, Boolean(m.pinned)]), [['m1', true], ['m2', false]]);
    assert.equal((await store.getBlobInfo(session.id, blob.id))?.lineCount, 2);
    assert.equal((await store.listBlobs(session.id)).length, 1);
    assert.equal((await store.loadSnapshot(session.id))?.tokenCount, 42);
    assert.equal((await store.listCompactionEvents(session.id))[0].tokensAfter, 40);
    assert.equal((await store.listRequestUsage(session.id))[0].reportedInputTokens, 12);
    await store.deleteSession(session.id);
    assert.equal((await store.listSessions()).length, 0);
    await store.close();
  });

  it('debounces writes and flushes on demand', async () => {
    const store = await openStore(folder, { debounceMs: 60_000 });
    const session = await store.createSession({ title: 'd' });
    await store.putMessages(session.id, [message('a', 1)]);
    assert.equal(filesUnder(folder).length, 0, 'nothing written before the debounce');
    await store.flush();
    assert.ok(filesUnder(folder).length > 0);
    await store.close();
  });

  it('persisting one more turn rewrites only small files, whatever is stored', async () => {
    let written = 0;
    const counting: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => { written += data.length; return nodeWriteFs.writeFileSynced(path, data); } };
    const store = await openStore(folder, { debounceMs: 1e9, fs: counting });
    const session = await store.createSession({ title: 'big' });
    const chunk = 'y'.repeat(4000);
    for (let i = 0; i < 6000; i++) {
      await store.putMessages(session.id, [message(`big${i}`, i, chunk)]);
      if (i % 100 === 99) await store.flush();
    }
    await store.flush();
    const total = filesUnder(folder).reduce((n, f) => n + readFileSync(f).length, 0);
    assert.ok(total > 20 * 1024 * 1024, `${total} bytes stored`);
    written = 0;
    await store.putMessages(session.id, [message('one-more', 1e9, 'the next turn')]);
    await store.flush();
    assert.ok(written < 3 * 1024 * 1024, `one turn wrote ${written} bytes`);
    await store.close();
  });

  it('never overwrites or moves a file from a newer schema version', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database();
    db.run('CREATE TABLE messages (id TEXT, session_id TEXT, created_at INTEGER, written_at INTEGER, body TEXT); PRAGMA user_version = 99;');
    const dir = join(folder, 'sessions', 'snewer');
    require('fs').mkdirSync(dir, { recursive: true });
    const path = join(dir, 'wfuture.seg0.sqlite');
    const bytes = Buffer.from(db.export());
    writeFileSync(path, bytes);
    const hash = fileHash(path);
    const first = await openStore(folder);
    assert.deepEqual(await first.loadTranscript('snewer'), []);
    assert.equal(first.problems[0].kind, 'newer-schema');
    await first.putMessages('snewer', [message('n1', 1)]);
    await first.close();
    assert.ok(readFileSync(path).equals(bytes), 'the newer file is untouched');

    const second = await openStore(folder);
    assert.deepEqual((await second.loadTranscript('snewer')).map((m) => m.id), ['n1'], 'what was written beside it still reads');
    assert.deepEqual(second.problems.map((p) => [p.kind, p.file]), [['newer-schema', path]]);
    await second.putMessages('snewer', [message('n2', 2)]);
    await second.close();
    assert.equal(fileHash(path), hash, 'the newer file is byte-for-byte unchanged');
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.sqlite')).sort(), [`${first.writer}.seg0.sqlite`, `${second.writer}.seg0.sqlite`, 'wfuture.seg0.sqlite'].sort(), 'new writes went to new files');

    const third = await openStore(folder);
    assert.deepEqual((await third.loadTranscript('snewer')).map((m) => m.id), ['n1', 'n2']);
    await third.close();
    assert.equal(fileHash(path), hash);
  });

  it('migrates an older file when reading it', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database(); // version 0: no tables at all
    const dir = join(folder, 'sessions', 'sold');
    require('fs').mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'wold.seg0.sqlite'), Buffer.from(db.export()));
    const store = await openStore(folder);
    assert.deepEqual(await store.loadTranscript('sold'), []);
    assert.equal(store.problems.length, 0);
    await store.close();
  });
});
