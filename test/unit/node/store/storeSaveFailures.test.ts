import { strict as assert } from 'assert';
import { ManualTimers } from '../../../support/manualTimers';
import { nodeWriteFs, type WriteFs } from '../../../../src/node/store/files/atomicFile';
import type { StoreProblem } from '../../../../src/core/ports/sessionStore';
import { MAX_PROBLEMS } from '../../../../src/node/store/files/storeProblems';
import { storeFolderPerTest } from './fixtures/storeFolder';
import { enospc, filesUnder, message } from './fixtures/storeFiles';

describe('sql.js store: saves that fail', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-store-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  it('survives a full disk: reports, keeps the session in memory, saves once space returns', async () => {
    let full = true;
    const flaky: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => { if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }); return nodeWriteFs.writeFileSynced(path, data); } };
    const store = await openStore(folder, { debounceMs: 1e9, fs: flaky });
    const session = await store.createSession({ title: 'disk' });
    await store.putMessages(session.id, [message('d1', 1)]);
    await assert.rejects(store.flush(), /ENOSPC/);
    assert.equal(store.problems.some((p) => p.kind === 'write-failed'), true);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['d1'], 'still in memory');
    full = false;
    await store.flush();
    await store.close();
    const reopened = await openStore(folder);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['d1']);
    await reopened.close();
  });

  it('a full disk is reported once per streak of failed saves, loses nothing, and a new streak is reported again', async () => {
    let full = true;
    let failures = 0;
    const flaky: WriteFs = {
      ...nodeWriteFs,
      writeFileSynced: async (path, data) => { if (full) { failures++; throw enospc(); } return nodeWriteFs.writeFileSynced(path, data); },
      writeFile: async (path, data, append) => { if (full) { failures++; throw enospc(); } return nodeWriteFs.writeFile(path, data, append); },
    };
    const store = await openStore(folder, { debounceMs: 1e9, fs: flaky });
    const notified: StoreProblem[] = [];
    store.onProblem((p) => notified.push(p));
    const session = await store.createSession({ title: 'disk' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(`d${i}`);
      await store.putMessages(session.id, [message(`d${i}`, i)]);
      await assert.rejects(store.flush(), /ENOSPC/);
    }
    await assert.rejects(store.putBlob(session.id, { toolName: 'dump', content: Buffer.from('out') }), /ENOSPC/);
    assert.ok(failures >= 13, `${failures} writes failed`);
    assert.deepEqual(notified.map((p) => p.kind), ['write-failed'], 'one notification for the whole streak');
    assert.deepEqual(store.problems.map((p) => p.kind), ['write-failed']);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ids, 'everything still in memory');
    assert.equal((await store.getSession(session.id))?.title, 'disk');
    assert.deepEqual(filesUnder(folder), [], 'nothing half-written');

    full = false;
    await store.flush();
    let reopened = await openStore(folder);
    assert.deepEqual((await reopened.listSessions()).map((s) => s.title), ['disk']);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ids, 'saved once space returned');
    await reopened.close();

    full = true;
    await store.putMessages(session.id, [message('d6', 6)]);
    await assert.rejects(store.flush(), /ENOSPC/);
    await assert.rejects(store.flush(), /ENOSPC/);
    assert.deepEqual(notified.map((p) => p.kind), ['write-failed', 'write-failed'], 'a failure after a successful save is reported again');
    full = false;
    await store.close();
    reopened = await openStore(folder);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), [...ids, 'd6']);
    await reopened.close();
  });

  it('timed saves on a full disk retry every second but notify once, and save by themselves once space returns', async () => {
    let full = true;
    let failures = 0;
    const flaky: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => { if (full) { failures++; throw enospc(); } return nodeWriteFs.writeFileSynced(path, data); } };
    // The store's clock is the test's: each timed save runs when the test fires it.
    const timers = new ManualTimers();
    let savingWorks!: () => void;
    const savedAgain = new Promise<void>((resolve) => (savingWorks = resolve));
    const store = await openStore(folder, { debounceMs: 5, fs: flaky, timers, log: (line) => line.includes('saving works again') && savingWorks() });
    const notified: StoreProblem[] = [];
    store.onProblem((p) => notified.push(p));
    const session = await store.createSession({ title: 'timer' });
    await store.putMessages(session.id, [message('t1', 1)]);
    assert.equal(await timers.next(), 5, 'the first save waits for the debounce');
    for (let save = 1; save <= 3; save++) {
      const before = failures;
      timers.fire();
      assert.equal(await timers.next(), 1_000, `after failed save ${save}, the next is a second later`);
      assert.ok(failures >= before + 2, `save ${save} tried the session's files again (info + segment): ${failures - before} failed writes`);
    }
    assert.ok(failures >= 6, `retried: ${failures} failed writes`);
    assert.deepEqual(notified.map((p) => p.kind), ['write-failed']);
    full = false;
    timers.fire();
    await savedAgain;
    const reopened = await openStore(folder);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['t1'], 'a retry saved it without an explicit flush');
    await reopened.close();
    assert.equal(notified.length, 1);
    await store.close();
  });

  it(`keeps only the last ${MAX_PROBLEMS} problems`, async () => {
    let n = 0;
    const failing: WriteFs = { ...nodeWriteFs, writeFileSynced: async () => { throw new Error(`EIO: i/o error #${++n}`); } };
    const store = await openStore(folder, { debounceMs: 1e9, fs: failing });
    const session = await store.createSession({ title: 'many' });
    await store.putMessages(session.id, [message('x', 1)]);
    for (let i = 0; i < 150; i++) await assert.rejects(store.flush(), /EIO/);
    assert.equal(n, 300);
    assert.equal(store.problems.length, MAX_PROBLEMS);
    assert.equal(store.problems.at(-1)?.message, 'EIO: i/o error #300', 'the newest are kept');
    assert.equal(store.problems[0].message, 'EIO: i/o error #101');
    await assert.rejects(store.close());
  });

  it('a flush waiting on a save in progress that fails still writes its own changes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    let writing!: () => void;
    const firstWriteStarted = new Promise<void>((resolve) => (writing = resolve));
    const stalling: WriteFs = {
      ...nodeWriteFs,
      writeFileSynced: async (path, data) => {
        if (++calls === 1) {
          writing();
          await gate; // the first write (the session row) stalls, then fails
          throw enospc();
        }
        return nodeWriteFs.writeFileSynced(path, data);
      },
    };
    const store = await openStore(folder, { debounceMs: 1e9, fs: stalling });
    const session = await store.createSession({ title: 'in flight' });
    await store.putMessages(session.id, [message('f1', 1)]);
    const first = store.flush();
    await firstWriteStarted;
    await store.putMessages(session.id, [message('f2', 2)]);
    const second = store.flush();
    release();
    await assert.rejects(first, /ENOSPC/);
    await second; // saves the session row the first one failed to write
    const reopened = await openStore(folder);
    assert.deepEqual(await reopened.getSession(session.id), session);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['f1', 'f2']);
    assert.deepEqual(reopened.problems, []);
    await reopened.close();
    await store.close();
  });
});
