import { strict as assert } from 'assert';
import { readdirSync, renameSync } from 'fs';
import { basename, dirname, join } from 'path';
import type { Message } from '../../../../../src/core/model/message';
import { OpenDatabases } from '../../../../../src/node/store/files/openDatabases';
import { segmentsReadDuring } from '../fixtures/filesRead';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'srecent';
const filler = 'test output line\n'.repeat(300);
const message = (id: string, createdAt: number, extra: Partial<Message> = {}): Message => ({ id, role: 'user', kind: 'user', content: `${id} ${filler}`, agentVisible: true, userVisible: true, createdAt, ...extra });

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

  it('reads earlier pages before a time, opening only the segments that hold them, until the whole transcript is read', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await writing.createSession({ id: SESSION, title: 'pages' });
    for (let t = 1; t <= 60; t++) {
      await writing.putMessages(SESSION, [message(`m${String(t).padStart(2, '0')}`, t * 10)]);
      await writing.flush();
    }
    await writing.close();
    // A later window: the segments' facts are recorded as they are first read.
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    const whole = await first.loadTranscript(SESSION);
    await first.close();

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const pages: string[][] = [];
    let page = await store.loadRecentTranscript(SESSION, 7);
    pages.push(page.messages.map((m) => m.id));
    let reads = 0;
    while (!page.complete) {
      const next = await segmentsReadDuring(() => store.loadRecentTranscript(SESSION, 7, { createdUpTo: page.createdAfter }));
      page = next.result;
      reads = Math.max(reads, next.read.length);
      pages.unshift(page.messages.map((m) => m.id));
    }
    assert.deepEqual(pages.flat(), whole.map((m) => m.id), 'the pages put end to end are the whole transcript, each message once');
    assert.ok(pages.slice(1).every((p) => p.length === 7), pages.map((p) => p.length).join(' '));
    assert.ok(reads <= 10, `a page before a time opened ${reads} segments (those holding it, not every newer one)`);
  });

  it('a file merged away between finding the newest messages and reading their bodies: the page is read again, with no gap', async () => {
    const folder = stores.folder();
    for (let w = 0; w < 2; w++) {
      const window = await stores.openStore(folder, { debounceMs: 1e9 });
      if (w === 0) await window.createSession({ id: SESSION, title: 'two windows' });
      await window.putMessages(SESSION, Array.from({ length: 30 }, (_, i) => message(`w${w}-${String(i).padStart(2, '0')}`, w * 100 + i + 1)));
      await window.close();
    }
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const proto = OpenDatabases.prototype as unknown as { read: (path: string, visit: unknown) => Promise<unknown> };
    const original = proto.read;
    const seen = new Set<string>();
    let movedAway: string | undefined;
    proto.read = function (this: unknown, path: string, visit: unknown) {
      // The second visit of a segment is for its bodies: first move its rows to a file of another name, as another window's merge would.
      if (/\.seg\d+\.sqlite$/.test(path) && seen.has(path) && !movedAway) {
        movedAway = path;
        renameSync(path, join(dirname(path), `wmerged-${basename(path)}`));
      }
      seen.add(path);
      return original.call(this, path, visit);
    };
    let recent: Awaited<ReturnType<typeof store.loadRecentTranscript>>;
    try {
      recent = await store.loadRecentTranscript(SESSION, 40);
    } finally {
      proto.read = original;
    }
    assert.ok(movedAway, 'a segment was moved between the two passes');
    const expected = [...Array.from({ length: 10 }, (_, i) => `w0-${20 + i}`), ...Array.from({ length: 30 }, (_, i) => `w1-${String(i).padStart(2, '0')}`)];
    assert.deepEqual(recent.messages.map((m) => m.id), expected, 'the 40 newest messages of both windows, in order');
  });
});
