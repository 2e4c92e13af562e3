import { strict as assert } from 'assert';
import { createHash } from 'crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Message } from '../../../../../src/core/model/message';
import { openStore } from '../../../../../src/node/store';
import { nodeWriteFs, type WriteFs } from '../../../../../src/node/store/files/atomicFile';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../../../src/node/store/sql/schema';
import { type SqlJsStore } from '../../../../../src/node/store/sqlJsStore';
import { ABSORB_MIN_FILES } from '../../../../../src/node/store/merge/closedWriterMerge';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';

const SESSION = 'smerge';
const message = (id: string, createdAt: number): Message => ({ id, role: 'user', kind: 'user', content: `message ${id}`, agentVisible: true, userVisible: true, createdAt });
const sessionFiles = (folder: string) => readdirSync(join(folder, 'sessions', SESSION)).filter((n) => n.endsWith('.sqlite'));
const writersOf = (names: string[]) => new Set(names.map((n) => n.split('.')[0]));

/** One VS Code window's life: open, write a little of everything, close. */
async function windowSession(folder: string, window: number, options = {}): Promise<void> {
  const store = await openStore(folder, { debounceMs: 5, ...options });
  if (!(await store.getSession(SESSION))) await store.createSession({ id: SESSION, title: 'merged' });
  await store.putMessages(SESSION, [message(`w${window}-a`, window * 10), message(`w${window}-b`, window * 10 + 1)]);
  await store.addRequestUsage({ id: `u${window}`, sessionId: SESSION, requestIndex: window, createdAt: window, model: 'm', contextWindow: 1000, maxOutputTokens: 100, components: { system: 1, skills: 0, tools: 0, messages: 0, toolResults: 0, summaries: 0 }, estimatedInputTokens: 1, items: [] });
  await store.addCompactionEvent({ id: `c${window}`, sessionId: SESSION, trigger: 'manual', status: 'complete', strategies: [], tokensBefore: 2, tokensAfter: 1, messagesBefore: 2, messagesAfter: 1, startedAt: window, durationMs: 1, removed: [] });
  await store.saveSnapshot({ sessionId: SESSION, compactionId: `c${window}`, tokenCount: window, createdAt: window, messages: [message(`w${window}-a`, window * 10)] });
  await store.updateSession(SESSION, { title: `title after window ${window}` });
  await store.close();
}

async function everything(store: SqlJsStore) {
  return {
    messages: (await store.loadTranscript(SESSION)).map((m) => m.id),
    title: (await store.getSession(SESSION))?.title,
    usage: (await store.listRequestUsage(SESSION)).map((u) => u.id),
    events: (await store.listCompactionEvents(SESSION)).map((e) => e.id),
    snapshot: (await store.loadSnapshot(SESSION))?.compactionId,
  };
}

describe('merging the files of closed windows', function () {
  this.timeout(60_000);
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'tally-merge-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('after 12 window restarts, the next window merges their files into its own and loses nothing', async () => {
    for (let w = 0; w < 12; w++) await windowSession(folder, w);
    assert.equal(writersOf(sessionFiles(folder)).size, 12, 'each window wrote files of its own');
    const expected = {
      messages: Array.from({ length: 12 }, (_, w) => [`w${w}-a`, `w${w}-b`]).flat(),
      title: 'title after window 11',
      usage: Array.from({ length: 12 }, (_, w) => `u${w}`),
      events: Array.from({ length: 12 }, (_, w) => `c${w}`),
      snapshot: 'c11',
    };
    const dir = join(folder, 'sessions', SESSION);
    const oldFiles = sessionFiles(folder).map((name) => [name, readFileSync(join(dir, name))] as const);
    const store = await openStore(folder, { debounceMs: 5 });
    assert.deepEqual(await everything(store), expected);
    await store.closedWindowsMerged(); // reads never wait for the merge; the files are checked after it
    assert.deepEqual([...writersOf(sessionFiles(folder))], [store.writer], 'only the merging window’s files are left');
    assert.ok(sessionFiles(folder).length <= 3);
    assert.deepEqual(store.problems, []);
    await store.close();
    const again = await openStore(folder, { debounceMs: 5 });
    assert.deepEqual(await everything(again), expected, 'a later window reads the same');
    await again.close();
    // A crash after the merged rows were saved but before the old files were removed: both exist.
    for (const [name, bytes] of oldFiles) writeFileSync(join(dir, name), bytes);
    const afterCrash = await openStore(folder, { debounceMs: 5 });
    assert.deepEqual(await everything(afterCrash), expected, 'duplicates read as one, nothing doubled');
    await afterCrash.close();
  });

  it('leaves the files of a window that is still open alone, and reads them', async () => {
    for (let w = 0; w < 4; w++) await windowSession(folder, w);
    const open = await openStore(folder, { debounceMs: 5 });
    await open.putMessages(SESSION, [message('live-1', 1_000)]);
    await open.flush();
    const other = await openStore(folder, { debounceMs: 5 });
    const messages = (await other.loadTranscript(SESSION)).map((m) => m.id);
    await other.closedWindowsMerged();
    assert.ok(messages.includes('live-1'));
    assert.equal(messages.length, 9);
    const writers = writersOf(sessionFiles(folder));
    assert.ok(writers.has(open.writer), 'the open window keeps its files');
    assert.ok(writers.has(other.writer));
    assert.equal(writers.size, 2, 'the four closed windows were merged');
    await other.close();
    await open.close();
  });

  it('treats a window killed without closing as gone once its heartbeat is three minutes old', async () => {
    for (let w = 0; w < 3; w++) await windowSession(folder, w);
    // A killed window: its files and a heartbeat that stopped being refreshed.
    const killed = await openStore(folder, { debounceMs: 5 });
    await killed.putMessages(SESSION, [message('killed-1', 500)]);
    await killed.flush();
    const heartbeat = join(folder, 'writers', `${killed.writer}.alive`);
    const copy = readFileSync(heartbeat);
    await killed.close();
    writeFileSync(heartbeat, copy);
    const fresh = await openStore(folder, { debounceMs: 5 });
    await fresh.loadTranscript(SESSION);
    await fresh.closedWindowsMerged();
    assert.ok(writersOf(sessionFiles(folder)).has(killed.writer), 'a fresh heartbeat counts as alive');
    await fresh.close();
    for (let w = 3; w < 6; w++) await windowSession(folder, w); // enough closed files to merge again
    const old = (Date.now() - 4 * 60_000) / 1000;
    utimesSync(heartbeat, old, old);
    const later = await openStore(folder, { debounceMs: 5 });
    assert.ok((await later.loadTranscript(SESSION)).some((m) => m.id === 'killed-1'));
    await later.closedWindowsMerged();
    assert.ok(!writersOf(sessionFiles(folder)).has(killed.writer), 'merged once its heartbeat went stale');
    assert.ok(!readdirSync(join(folder, 'writers')).includes(`${killed.writer}.alive`), 'the stale heartbeat is removed');
    await later.close();
  });

  it(`does nothing below ${ABSORB_MIN_FILES} files of closed windows`, async () => {
    for (let w = 0; w < 2; w++) await windowSession(folder, w);
    const before = sessionFiles(folder).sort();
    const store = await openStore(folder, { debounceMs: 5 });
    assert.equal((await store.loadTranscript(SESSION)).length, 4);
    await store.close();
    assert.deepEqual(sessionFiles(folder).filter((n) => before.includes(n)).sort(), before);
  });

  it('when saving the merged rows fails, removes nothing; the next window merges', async () => {
    for (let w = 0; w < 4; w++) await windowSession(folder, w);
    const before = sessionFiles(folder).sort();
    const full: WriteFs = { ...nodeWriteFs, writeFileSynced: async () => { throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }); } };
    const failing = await openStore(folder, { debounceMs: 5, fs: full });
    assert.equal((await failing.loadTranscript(SESSION)).length, 8, 'everything still reads');
    await failing.closedWindowsMerged();
    assert.deepEqual(sessionFiles(folder).sort(), before, 'no old file removed');
    assert.ok(failing.problems.some((p) => p.kind === 'write-failed'));
    await failing.close().catch(() => undefined);
    const store = await openStore(folder, { debounceMs: 5 });
    assert.equal((await store.loadTranscript(SESSION)).length, 8);
    await store.closedWindowsMerged();
    assert.deepEqual([...writersOf(sessionFiles(folder))], [store.writer]);
    await store.close();
  });

  it('never merges or removes a closed window’s file from a newer schema', async () => {
    for (let w = 0; w < 4; w++) await windowSession(folder, w);
    const SQL = await sqlRuntime();
    const db = new SQL.Database();
    for (const m of MIGRATIONS) db.run(m.sql);
    db.run(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    const newer = join(folder, 'sessions', SESSION, 'wfuture1.seg0.sqlite');
    writeFileSync(newer, db.export());
    db.close();
    const hash = createHash('sha256').update(readFileSync(newer)).digest('hex');
    const store = await openStore(folder, { debounceMs: 5 });
    assert.equal((await store.loadTranscript(SESSION)).length, 8);
    await store.close();
    assert.equal(createHash('sha256').update(readFileSync(newer)).digest('hex'), hash);
    assert.deepEqual([...writersOf(sessionFiles(folder))].sort(), [store.writer, 'wfuture1'].sort());
  });
});
