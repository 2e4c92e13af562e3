import { strict as assert } from 'assert';
import { readdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import type { Message } from '../../../../../src/core/model/message';
import { resumeSession } from '../../../../../src/core/context/resume';
import type { SqlJsStore } from '../../../../../src/node/store';
import { filesReadDuring } from '../fixtures/filesRead';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'sfacts';
const filler = 'log line with some output\n'.repeat(400);
const message = (id: string, createdAt: number, extra: Partial<Message> = {}): Message => ({ id, role: 'user', kind: 'user', content: `${id} ${filler}`, agentVisible: true, userVisible: true, createdAt, ...extra });
const usage = (requestIndex: number) => ({ id: `u${requestIndex}`, sessionId: SESSION, requestIndex, createdAt: requestIndex, model: 'm', inputTokens: 1, outputTokens: 1, components: { system: 0, skills: 0, tools: 0, conversation: 1 }, items: [] });

/** A session of 40 turns spread over many small sealed segments, a snapshot at turn 30, pins set on both sides. */
async function longSession(store: SqlJsStore): Promise<void> {
  await store.createSession({ id: SESSION, title: 'facts' });
  for (let t = 1; t <= 40; t++) {
    await store.putMessages(SESSION, [message(`m${t}`, t)]);
    await store.addRequestUsage(usage(t - 1) as never);
    if (t === 30) await store.saveSnapshot({ sessionId: SESSION, compactionId: 'c30', tokenCount: 10, createdAt: 30, messages: [message('summary', 30), message('m29', 29), message('m30', 30)] });
    if (t === 5) await store.putMessages(SESSION, [message('m3', 3, { pinned: true })]); // an old message pinned, then unpinned later
    if (t === 35) await store.putMessages(SESSION, [message('m3', 3, { pinned: false }), message('m29', 29, { pinned: true })]);
    await store.flush();
  }
}

describe('resuming without opening the segments it does not need', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-facts-');

  it('reads only the segments holding messages after the snapshot, with the same pins and request count as reading them all', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await longSession(writing);
    await writing.close();
    const dir = join(folder, 'sessions', SESSION);
    const segments = readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n));
    assert.ok(segments.length >= 20, `${segments.length} segments`);

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const { result: resumed, read } = await filesReadDuring(() => resumeSession(store, SESSION));
    assert.deepEqual(resumed.working.map((m) => m.id), ['summary', 'm29', 'm30', ...Array.from({ length: 10 }, (_, i) => `m${31 + i}`)]);
    assert.equal(resumed.working.find((m) => m.id === 'm29')?.pinned, true, 'pinned after the snapshot, in a later segment');
    assert.equal(resumed.nextRequestIndex, 40, 'every usage row counted, none read');
    const segmentsRead = read.filter((p) => /\.seg\d+\.sqlite$/.test(p));
    assert.ok(segmentsRead.length > 0 && segmentsRead.length <= 12, `read ${segmentsRead.length} of ${segments.length} segments`);

    // The same answers with every segment read (no facts file): facts never change what resume sees.
    await store.close();
    writeFileSync(join(dir, 'segments.json'), '{ not json');
    const blind = await stores.openStore(folder, { debounceMs: 1e9 });
    const { result: again, read: readBlind } = await filesReadDuring(() => resumeSession(blind, SESSION));
    assert.deepEqual(again, resumed);
    assert.deepEqual(new Set(readBlind.filter((p) => /\.seg\d+\.sqlite$/.test(p))).size, segments.length, 'with unreadable facts, every segment is read');
  });

  it('an old message pinned and unpinned across segments resolves to its latest state', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await longSession(writing);
    await writing.close();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const pins = await store.loadPins(SESSION, 30);
    assert.equal(pins.get('m3'), false, 'unpinned at turn 35 after being pinned at turn 5');
    assert.equal(pins.get('m29'), true);
  });

  it('ignores facts recorded for a file that has changed since', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await longSession(writing);
    await writing.close();
    const dir = join(folder, 'sessions', SESSION);
    const facts = JSON.parse(readFileSync(join(dir, 'segments.json'), 'utf8')) as Record<string, { maxCreatedAt: number; mtimeMs: number }>;
    const newest = Object.entries(facts).sort((a, b) => b[1].maxCreatedAt - a[1].maxCreatedAt)[0][0];
    // Facts claiming the newest segment holds nothing recent, for a file whose time has since moved.
    facts[newest] = { ...facts[newest], maxCreatedAt: 0, mtimeMs: facts[newest].mtimeMs - 10_000 };
    writeFileSync(join(dir, 'segments.json'), JSON.stringify(facts));
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const resumed = await resumeSession(store, SESSION);
    assert.equal(resumed.working.at(-1)?.id, 'm40', 'the newest messages are still read');
  });

  it('leaves closed windows’ full sealed segments where they are and merges only their small files, losing nothing', async () => {
    const folder = stores.folder();
    const writers: string[] = [];
    for (let w = 0; w < 10; w++) {
      const store = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
      writers.push(store.writer);
      if (w === 0) await store.createSession({ id: SESSION, title: 'windows' });
      for (let i = 0; i < 4; i++) {
        await store.putMessages(SESSION, [message(`w${w}-${i}`, w * 10 + i + 1)]);
        await store.flush();
      }
      await store.close();
    }
    const dir = join(folder, 'sessions', SESSION);
    const sealedBefore = readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n)).filter((n) => readdirSync(dir).includes(n.replace(/seg(\d+)/, (_, d) => `seg${Number(d) + 1}`)));
    assert.ok(sealedBefore.length >= 10, `${sealedBefore.length} sealed segments`);
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const transcript = await store.loadTranscript(SESSION);
    await store.closedWindowsMerged();
    assert.equal(transcript.length, 40, 'every message of every window');
    const after = readdirSync(dir);
    for (const name of sealedBefore) assert.ok(after.includes(name), `${name} stays`);
    const smallLeft = after.filter((n) => n.endsWith('.sqlite') && !sealedBefore.includes(n) && !n.startsWith(store.writer));
    assert.deepEqual(smallLeft, [], 'the small files of closed windows were merged');
  });
});
