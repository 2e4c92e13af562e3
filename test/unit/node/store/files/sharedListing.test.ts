import { strict as assert } from 'assert';
import { promises as fsp, readdirSync } from 'fs';
import { join } from 'path';
import type { Message } from '../../../../../src/core/model/message';
import type { SqlJsStore } from '../../../../../src/node/store';
import { folderCallsDuring } from '../fixtures/folderCalls';
import { segmentsReadDuring } from '../fixtures/filesRead';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'sshared';
const filler = 'build output line\n'.repeat(250);
const message = (id: string, createdAt: number): Message => ({ id, role: 'user', kind: 'user', content: `${id} ${filler}`, agentVisible: true, userVisible: true, createdAt });
const usage = (requestIndex: number) => ({ id: `u${requestIndex}`, sessionId: SESSION, requestIndex, createdAt: requestIndex * 10, model: 'm', contextWindow: 1000, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, estimatedInputTokens: 2, items: [] });
const SEGMENT = /\.seg\d+\.sqlite$/;

/** A session over many segments, as a long agent session leaves it: messages, usage, a result now and then, a compaction every ten turns. */
async function writeSession(store: SqlJsStore, turns: number): Promise<void> {
  await store.createSession({ id: SESSION, title: 'shared listing' });
  for (let t = 1; t <= turns; t++) {
    await store.putMessages(SESSION, [message(`m${String(t).padStart(3, '0')}`, t * 10)]);
    await store.addRequestUsage(usage(t) as never);
    if (t % 5 === 0) await store.putBlob(SESSION, { toolName: 'run_command', toolCallId: `c${t}`, content: Buffer.from(`output ${t}\n`) });
    if (t % 10 === 0) {
      await store.addCompactionEvent({ id: `cmp${t}`, sessionId: SESSION, trigger: 'auto', status: 'done', startedAt: t * 10, tokensBefore: 10 } as never);
      await store.saveSnapshot({ sessionId: SESSION, compactionId: `cmp${t}`, tokenCount: 5, createdAt: t * 10, messages: [message(`summary${t}`, t * 10)] });
    }
    await store.flush();
  }
}

/**
 * Holds the next load of a segment file until `release`: a read of the session stays running
 * meanwhile, so the reads started then run beside it, as the reads of an open do.
 */
function holdNextSegmentLoad(): { reached: Promise<void>; release(): void } {
  const original = fsp.readFile;
  let reached!: () => void;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const hold = { reached: new Promise<void>((resolve) => (reached = resolve)), release };
  (fsp as { readFile: unknown }).readFile = async (path: unknown, ...rest: unknown[]) => {
    if (SEGMENT.test(String(path))) {
      (fsp as { readFile: unknown }).readFile = original;
      reached();
      await released;
    }
    return (original as (...a: unknown[]) => unknown)(path, ...rest);
  };
  return hold;
}

/** The reads a window makes when it opens a session for the chat, in the order the chat makes them. */
async function openLikeTheChat(store: SqlJsStore) {
  const info = await store.getSession(SESSION);
  const next = await store.nextRequestIndex(SESSION);
  const last = await store.requestUsageAt(SESSION, next - 1, { items: false });
  const snapshot = await store.loadSnapshot(SESSION);
  const [pins, newer, compactions, figures, blobs] = await Promise.all([
    store.loadPins(SESSION, snapshot!.createdAt),
    store.loadTranscript(SESSION, { createdAfter: snapshot!.createdAt }),
    store.listCompactionEvents(SESSION),
    store.listRequestUsage(SESSION, { items: false }),
    store.listBlobs(SESSION),
  ]);
  const page = await store.loadRecentTranscript(SESSION, 12);
  return { title: info?.title, next, last: last?.id, snapshot: snapshot?.compactionId, pins: pins.size, newer: newer.map((m) => m.id), compactions: compactions.length, figures: figures.length, blobs: blobs.length, page: page.messages.map((m) => m.id) };
}

describe('the reads of a session opening share one listing of its folder', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-shared-listing-');

  it('lists the folder once and states each segment once for the whole open, with the same answers', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 96 * 1024 });
    await writeSession(writing, 45);
    await writing.close();
    const dir = join(folder, 'sessions', SESSION);
    const segments = readdirSync(dir).filter((n) => SEGMENT.test(n)).map((n) => join(dir, n));
    assert.ok(segments.length >= 8, `${segments.length} segments`);

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const { result: calls, read } = await segmentsReadDuring(() => folderCallsDuring(() => openLikeTheChat(store)));
    assert.deepEqual(calls.result, {
      title: 'shared listing', next: 46, last: 'u45', snapshot: 'cmp40', pins: 0, newer: ['m041', 'm042', 'm043', 'm044', 'm045'],
      compactions: 4, figures: 45, blobs: 9, page: Array.from({ length: 12 }, (_, i) => `m${String(34 + i).padStart(3, '0')}`),
    });
    assert.deepEqual(calls.listed.filter((path) => path === dir), [dir], 'the session folder is listed once');
    const loaded = new Set(read);
    for (const path of segments) {
      const stats = calls.stated.filter((p) => p === path).length;
      // A segment whose rows are read is stated again where it is opened (that check stays); every other one once.
      if (!loaded.has(path)) assert.equal(stats, 1, `${path.split(/[\\/]/).pop()} stated ${stats} times`);
    }
    assert.ok(loaded.size <= 3, `${loaded.size} segments loaded: ${read.map((p) => p.split(/[\\/]/).pop()).join(" ")} of ${segments.length}`);
  });

  it('a read started while others run sees a segment another window added after they listed the folder', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 96 * 1024 });
    await writeSession(writing, 20);
    await writing.close();
    const reader = await stores.openStore(folder, { debounceMs: 1e9 });
    const other = await stores.openStore(folder, { debounceMs: 1e9 });

    const hold = holdNextSegmentLoad();
    const running = reader.loadTranscript(SESSION); // lists the folder, then waits on its first segment
    await hold.reached;
    await other.putMessages(SESSION, [message('m900', 9000)]);
    await other.flush(); // the other window's first segment of the session: a new file in the folder
    let recent: string[];
    try {
      recent = (await reader.loadRecentTranscript(SESSION, 3)).messages.map((m) => m.id);
    } finally {
      hold.release();
      await running;
    }
    assert.deepEqual(recent, ['m019', 'm020', 'm900']);
  });

  it('a read started while others run sees the segment this window sealed and closed after they listed the folder', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 96 * 1024 });
    await writeSession(writing, 20);
    await writing.close();
    const store = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 96 * 1024 });

    const hold = holdNextSegmentLoad();
    const running = store.loadTranscript(SESSION);
    await hold.reached;
    // Enough for this window's first segment to be sealed at the save: saved, closed, on disk only.
    for (let t = 0; t < 12; t++) await store.putMessages(SESSION, [message(`w${String(t).padStart(2, '0')}`, 5000 + t)]);
    await store.flush();
    await store.putMessages(SESSION, [message('w99', 6000)]);
    const dir = join(folder, 'sessions', SESSION);
    assert.ok(readdirSync(dir).some((n) => n.startsWith(`${store.writer}.seg0.`)) && readdirSync(dir).some((n) => n.startsWith(`${store.writer}.seg1.`)) === false, 'sealed and saved: the next segment is in memory only');
    let ids: string[];
    try {
      ids = (await store.loadTranscript(SESSION)).map((m) => m.id);
    } finally {
      hold.release();
      await running;
    }
    assert.deepEqual(ids.filter((id) => id.startsWith('w')), [...Array.from({ length: 12 }, (_, t) => `w${String(t).padStart(2, '0')}`), 'w99']);
    assert.equal(ids.length, 20 + 13);
  });
});
