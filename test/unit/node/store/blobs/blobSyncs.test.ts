/**
 * A save waits for the disk on many stored results at once, not one after another (a compaction
 * of a long session stores thousands), and still lets no session file that lists them go first.
 */
import { strict as assert } from 'assert';
import { nodeWriteFs, type WriteFs } from '../../../../../src/node/store/files/atomicFile';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const RESULTS = 40;

/** The real file operations; each fsync of a stored result's file counted while it runs, and held for one turn of the event loop. */
function overlapCountingFs(failing?: (path: string) => boolean): { fs: WriteFs; most: () => number; order: string[] } {
  let running = 0;
  let most = 0;
  const order: string[] = [];
  const fs: WriteFs = {
    ...nodeWriteFs,
    writeFileSynced: async (path, data) => (order.push(`save ${path}`), nodeWriteFs.writeFileSynced(path, data)),
    syncDirectory: async (path) => (order.push(`folder ${path}`), nodeWriteFs.syncDirectory(path)),
    syncFile: async (path) => {
      if (!path.includes('blobs')) return nodeWriteFs.syncFile(path);
      running++;
      most = Math.max(most, running);
      try {
        await new Promise((resolve) => setImmediate(resolve));
        if (failing?.(path)) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        await nodeWriteFs.syncFile(path);
        order.push(`synced ${path}`);
      } finally {
        running--;
      }
    },
  };
  return { fs, most: () => most, order };
}

describe("a save's fsyncs of stored results", function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-blob-syncs-');

  it(`runs several at once for ${RESULTS} results, all before the folder's and the session's files`, async () => {
    const { fs, most, order } = overlapCountingFs();
    const store = await stores.openStore(stores.folder(), { fs, debounceMs: 1e9 });
    const session = await store.createSession({ title: 'compacted' });
    for (let i = 0; i < RESULTS; i++) await store.putBlob(session.id, { toolName: 'run_command', content: Buffer.from(`output ${i}\n`) });
    await store.flush();
    const synced = order.filter((o) => o.startsWith('synced'));
    assert.equal(synced.length, 2 * RESULTS, 'each content and ref file fsynced once');
    assert.ok(most() >= 3, `at most ${most()} fsync(s) of stored results ran at once`);
    const folder = order.findIndex((o) => o.startsWith('folder') && o.endsWith('blobs'));
    const lastSynced = order.map((o) => o.startsWith('synced')).lastIndexOf(true);
    const segmentSave = order.findIndex((o) => /^save .*\.seg\d+\.sqlite/.test(o));
    assert.ok(folder > lastSynced, "the blobs folder is synced after every file in it");
    assert.ok(segmentSave > folder, 'the segment that lists the results is saved after they reached the disk');
  });

  it('keeps a file whose fsync failed for the next save, syncs the others, and saves no session file that lists it', async () => {
    let failOnce: string | undefined;
    let retried = false;
    const { fs, order } = overlapCountingFs((path) => {
      if (failOnce === undefined && path.endsWith('.ref')) failOnce = path;
      return !retried && path === failOnce;
    });
    const store = await stores.openStore(stores.folder(), { fs, debounceMs: 1e9 });
    const session = await store.createSession({ title: 'compacted' });
    for (let i = 0; i < 10; i++) await store.putBlob(session.id, { toolName: 'run_command', content: Buffer.from(`output ${i}\n`) });
    await assert.rejects(store.flush(), /EIO/);
    assert.ok(failOnce, 'a ref file failed');
    assert.equal(order.filter((o) => o.startsWith('synced')).length, 19, 'every other file was synced');
    assert.equal(order.filter((o) => /^save .*\.seg\d+\.sqlite/.test(o)).length, 0, 'no segment saved before its results reached the disk');
    retried = true;
    order.length = 0;
    await store.flush();
    assert.deepEqual(order.filter((o) => o.startsWith('synced')), [`synced ${failOnce}`], 'the next save syncs the file that failed, only it');
    assert.ok(order.some((o) => /^save .*\.seg\d+\.sqlite/.test(o)), 'then saves the segment');
  });
});
