/** Storing many results makes the results' folder once, not once per result, and makes it again if it went away. */
import { strict as assert } from 'assert';
import { promises as fsp } from 'fs';
import { storeFolderPerTest } from '../fixtures/storeFolder';

describe('stored results: their folder', () => {
  const stores = storeFolderPerTest('tally-blob-folder-');

  it('is made once for 30 results, and again when it was removed meanwhile (the next result is still stored)', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9, sync: false });
    await store.createSession({ id: 's1', title: 'results' });
    const original = fsp.mkdir;
    const made: string[] = [];
    fsp.mkdir = (async (path: Parameters<typeof fsp.mkdir>[0], options?: Parameters<typeof fsp.mkdir>[1]) => {
      if (String(path).endsWith('blobs')) made.push(String(path));
      return original(path, options);
    }) as typeof fsp.mkdir;
    try {
      for (let i = 0; i < 30; i++) await store.putBlob('s1', { toolName: 'run_command', content: new TextEncoder().encode(`output ${i}\n`.repeat(20)) });
      assert.equal(made.length, 1, 'the folder made once');
      await fsp.rm(made[0], { recursive: true, force: true });
      const info = await store.putBlob('s1', { toolName: 'run_command', content: new TextEncoder().encode('after the folder went away') });
      assert.equal(new TextDecoder().decode((await store.readBlob('s1', info.id, 0, info.byteSize)).bytes), 'after the folder went away');
      assert.equal(made.length, 2, 'made again once it went away');
    } finally {
      fsp.mkdir = original;
    }
  });
});
