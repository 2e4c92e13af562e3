import { strict as assert } from 'assert';
import { promises as fsp, readdirSync } from 'fs';
import { join } from 'path';
import type { Message } from '../../../src/core/model/message';
import { withSessionReadCache } from '../../../src/host/sessionReadCache';
import { storeFolderPerTest } from './fixtures/storeFolder';

const SESSION = 'srecent';
const filler = 'test output line\n'.repeat(300);
const message = (id: string, createdAt: number, extra: Partial<Message> = {}): Message => ({ id, role: 'user', kind: 'user', content: `${id} ${filler}`, agentVisible: true, userVisible: true, createdAt, ...extra });

async function segmentsReadDuring<T>(run: () => Promise<T>): Promise<{ result: T; read: string[] }> {
  const original = fsp.readFile;
  const read: string[] = [];
  (fsp as { readFile: unknown }).readFile = (path: unknown, ...rest: unknown[]) => {
    if (/\.seg\d+\.sqlite$/.test(String(path))) read.push(String(path));
    return (original as (...a: unknown[]) => unknown)(path, ...rest);
  };
  try {
    return { result: await run(), read };
  } finally {
    (fsp as { readFile: unknown }).readFile = original;
  }
}

describe('the recent part of a long transcript', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-recent-');

  it('reads the newest messages from the newest segments only, says more exist, and matches the whole transcript’s tail', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await writing.createSession({ id: SESSION, title: 'recent' });
    for (let t = 1; t <= 60; t++) {
      await writing.putMessages(SESSION, [message(`m${String(t).padStart(2, '0')}`, t * 10)]);
      await writing.flush();
    }
    await writing.close();
    const segments = readdirSync(join(folder, 'sessions', SESSION)).filter((n) => /\.seg\d+\.sqlite$/.test(n)).length;
    assert.ok(segments >= 30, `${segments} segments`);

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const whole = await store.loadTranscript(SESSION);
    const { result: recent, read } = await segmentsReadDuring(() => store.loadRecentTranscript(SESSION, 5));
    assert.deepEqual(recent.messages.map((m) => m.id), whole.slice(-5).map((m) => m.id));
    assert.equal(recent.complete, false, 'older messages exist');
    assert.equal(recent.createdAfter, whole.at(-6)!.createdAt);
    assert.ok(read.length <= 12, `read ${read.length} of ${segments} segments (the newest ones, twice at most)`);

    const all = await store.loadRecentTranscript(SESSION, 60);
    assert.equal(all.complete, true, 'no more than asked for: the whole transcript');
    assert.deepEqual(all.messages.map((m) => m.id), whole.map((m) => m.id));
  });

  it('through the views’ cache: new messages join the recent part, older rewrites stay out, and a whole read replaces it', async () => {
    const folder = stores.folder();
    const raw = await stores.openStore(folder, { debounceMs: 1e9 });
    await raw.createSession({ id: SESSION, title: 'recent' });
    await raw.putMessages(SESSION, Array.from({ length: 20 }, (_, i) => message(`m${String(i + 1).padStart(2, '0')}`, (i + 1) * 10)));
    const store = withSessionReadCache(raw);
    const recent = await store.loadRecentTranscript(SESSION, 4);
    assert.deepEqual(recent.messages.map((m) => m.id), ['m17', 'm18', 'm19', 'm20']);
    await store.putMessages(SESSION, [message('m21', 210), message('m02', 20, { pinned: true }), message('m18', 180, { pinned: true })]);
    const again = await store.loadRecentTranscript(SESSION, 4);
    assert.deepEqual(again.messages.map((m) => m.id), ['m17', 'm18', 'm19', 'm20', 'm21'], 'the new message joins; the old rewrite does not');
    assert.equal(again.messages[1].pinned, true, 'a rewrite inside the recent part is kept');
    assert.equal(again.complete, false);
    const whole = await store.loadTranscript(SESSION);
    assert.equal(whole.length, 21);
    assert.equal(whole.find((m) => m.id === 'm02')?.pinned, true);
    const afterWhole = await store.loadRecentTranscript(SESSION, 4);
    assert.equal(afterWhole.complete, true, 'once read whole, the cache serves the whole transcript');
    assert.equal(afterWhole.messages.length, 21);
  });
});
