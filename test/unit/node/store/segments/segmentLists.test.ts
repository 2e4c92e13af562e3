import { strict as assert } from 'assert';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import type { SqlJsStore } from '../../../../../src/node/store';
import type { Database, Statement } from 'sql.js';
import { SEGMENT_LISTS } from '../../../../../src/node/store/segments/sealedLists';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { segmentsReadDuring } from '../fixtures/filesRead';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'slists';
const filler = 'log line with some output\n'.repeat(300);
const usage = (requestIndex: number) => ({ id: `u${requestIndex}`, sessionId: SESSION, requestIndex, createdAt: requestIndex, model: 'm', contextWindow: 1000 + requestIndex, components: { system: 0, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, estimatedInputTokens: 1, items: [{ messageId: `m${requestIndex}`, role: 'user', kind: 'user', tokens: 1, badges: [], preview: 'x' }] });

/** A session over many small segments with usage figures, compaction records and offloaded results in each. */
async function writeSession(store: SqlJsStore): Promise<void> {
  await store.createSession({ id: SESSION, title: 'lists' });
  for (let t = 0; t < 30; t++) {
    await store.putMessages(SESSION, [{ id: `m${t}`, role: 'user', kind: 'user', content: `${t} ${filler}`, agentVisible: true, userVisible: true, createdAt: t }]);
    await store.addRequestUsage(usage(t) as never);
    if (t % 3 === 0) await store.putBlob(SESSION, { toolName: 'run_command', toolCallId: `c${t}`, content: Buffer.from(`output ${t}\n`) });
    if (t % 10 === 9) await store.addCompactionEvent({ id: `cmp${t}`, sessionId: SESSION, trigger: 'auto', status: 'done', startedAt: t, tokensBefore: 10 } as never);
    await store.flush();
  }
}

/** What the chat and the inspector list when a window opens the session. */
async function openLists(store: SqlJsStore) {
  const [figures, compactions, blobs] = await Promise.all([store.listRequestUsage(SESSION, { items: false }), store.listCompactionHeads(SESSION), store.listBlobs(SESSION)]);
  return { figures: figures.map((u) => [u.requestIndex, u.contextWindow]), compactions: compactions.map((c) => c.id), blobs: blobs.map((b) => [b.id, b.toolCallId, b.byteSize]).sort() };
}

describe('a window opening a session lists usage, compactions and results without loading its segments', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-lists-');

  it('loads no segment file for the lists of a session another window closed, and the same lists as reading every file', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await writeSession(writing);
    await writing.close();
    const dir = join(folder, 'sessions', SESSION);
    assert.ok(readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n)).length >= 10, 'a session of many segments');

    const reopened = await stores.openStore(folder, { debounceMs: 1e9 });
    const fromFacts = await segmentsReadDuring(() => openLists(reopened));
    assert.deepEqual(fromFacts.read, [], 'segment files loaded for the lists');
    assert.equal(fromFacts.result.figures.length, 30);
    assert.deepEqual(fromFacts.result.compactions, ['cmp9', 'cmp19', 'cmp29']);
    assert.equal(fromFacts.result.blobs.length, 10);
    await reopened.close();

    // Without the facts file (a store written before it held the lists) every file is read, the
    // answer is the same, and the sealed segments' lists are recorded: the next window loads none
    // of them again (the writer's last segment is recorded once its file has settled for seconds).
    rmSync(join(dir, 'segments.json'));
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    const fromFiles = await segmentsReadDuring(() => openLists(first));
    assert.ok(fromFiles.read.length >= 10, `${fromFiles.read.length} files read`);
    assert.deepEqual(fromFiles.result, fromFacts.result);
    await first.close();
    const next = await stores.openStore(folder, { debounceMs: 1e9 });
    const again = await segmentsReadDuring(() => openLists(next));
    const last = readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n)).sort((a, b) => Number(/seg(\d+)/.exec(b)![1]) - Number(/seg(\d+)/.exec(a)![1]))[0];
    assert.deepEqual([...new Set(again.read.map((p) => p.split(/[\\/]/).pop()))], [last], 'only the last segment, not yet settled, is loaded');
    assert.deepEqual(again.result, fromFacts.result);
  });

  it('reads the files again when the recorded lists are damaged, with the same answer', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await writeSession(writing);
    await writing.close();
    const path = join(folder, 'sessions', SESSION, 'segments.json');
    const facts = JSON.parse(readFileSync(path, 'utf8')) as Record<string, { lists?: unknown }>;
    for (const entry of Object.values(facts)) entry.lists = { usageFigures: 'none', compactions: [{ id: 7 }], blobs: null };
    writeFileSync(path, JSON.stringify(facts));

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const { result, read } = await segmentsReadDuring(() => openLists(store));
    assert.ok(read.length >= 10, `${read.length} files read`);
    assert.equal(result.figures.length, 30);
    assert.deepEqual(result.compactions, ['cmp9', 'cmp19', 'cmp29']);
    assert.equal(result.blobs.length, 10);
  });

  it('a segment loaded for its messages runs no list query when its recorded facts hold its lists', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await writeSession(writing);
    await writing.close();
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    const expected = await openLists(first); // the facts are recorded (with every segment's lists)
    await first.close();
    // The next window reads the transcript first, as the chat's page is read before the lists.
    const reopened = await stores.openStore(folder, { debounceMs: 1e9 });
    const SQL = await sqlRuntime();
    const prepare = SQL.Database.prototype.prepare;
    const asked: string[] = [];
    SQL.Database.prototype.prepare = function (this: Database, sql: string, ...rest: unknown[]) {
      asked.push(sql);
      return (prepare as (...a: unknown[]) => Statement).call(this, sql, ...rest);
    } as typeof prepare;
    try {
      const { read } = await segmentsReadDuring(() => reopened.loadTranscript(SESSION));
      assert.ok(read.length >= 10, `the transcript loads the segments (${read.length})`);
    } finally {
      SQL.Database.prototype.prepare = prepare;
    }
    const lists = Object.values(SEGMENT_LISTS);
    assert.deepEqual(asked.filter((sql) => lists.includes(sql as (typeof lists)[number])), [], 'no list taken again from a file whose facts hold it');
    assert.deepEqual(await openLists(reopened), expected, 'the lists are the same');
  });
});

