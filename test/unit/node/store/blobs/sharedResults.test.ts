import { strict as assert } from 'assert';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('stored results shared with a fork', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-shared-results-');

  it('reads in the session it is shared with, in another window too, and two shares made in two windows both hold', async () => {
    const first = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const second = await stores.openStore(stores.folder(), { debounceMs: 5 });
    const owner = await first.createSession({ title: 'owner' });
    const ref = (await first.putBlob(owner.id, { toolName: 'run_command', content: bytes('npm test output') })).id;
    const stranger = await first.createSession({ title: 'stranger' });
    const strangers = (await first.putBlob(stranger.id, { toolName: 'read_file', content: bytes('not yours') })).id;
    // The second window read the result before any share (and keeps what it read).
    assert.equal((await second.getBlobInfo(owner.id, ref))?.byteSize, 15);

    const shared = await first.shareBlobs(owner.id, 'fork-a', [ref, strangers, 'r0000000000000000000000000000', 'not a ref']);
    assert.deepEqual(shared.map((b) => b.id), [ref], 'only what the owner may read is shared');
    await second.shareBlobs(owner.id, 'fork-b', [ref]);

    for (const store of [first, second]) {
      for (const fork of ['fork-a', 'fork-b']) assert.equal(new TextDecoder().decode((await store.readBlob(fork, ref, 0, 100)).bytes), 'npm test output', `${fork} reads it`);
      await assert.rejects(store.readBlob('fork-a', strangers, 0, 100), /no stored result/);
      await assert.rejects(store.readBlob('fork-c', ref, 0, 100), /no stored result/, 'a session it was not shared with');
    }
    assert.deepEqual((await first.listBlobs('fork-a')).map((b) => b.id), [ref], 'the fork lists it');
    assert.deepEqual((await first.listBlobs(owner.id)).map((b) => b.id), [ref], 'the owner still lists it once');
  });
});
