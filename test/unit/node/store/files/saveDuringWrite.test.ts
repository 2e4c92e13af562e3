import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const message = (i: number): Message => ({ id: `m${i}`, role: 'user', kind: 'user', content: `message ${i} `.repeat(300), agentVisible: true, userVisible: true, createdAt: i });

/** Lets `turns` other promise callbacks run first. */
async function afterTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

describe('a save that starts while a write is on its way', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-save-during-write-');

  it('keeps the write: a row written just after its file was taken for saving is saved by the next save', async () => {
    const folder = stores.folder();
    // Small segments: most writes open a new file, which takes a few turns before the row is written.
    const store = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 4 * 1024 });
    await store.createSession({ id: 'swrites', title: 'writes' });
    for (let i = 0; i < 60; i++) {
      // A save (a timed one, or another part of the store saving) starts a few turns into the write.
      await Promise.all([store.putMessages('swrites', [message(i)]), afterTurns(i % 12).then(() => store.flush())]);
    }
    await store.close();
    const next = await stores.openStore(folder);
    assert.deepEqual((await next.loadTranscript('swrites')).map((m) => m.id), Array.from({ length: 60 }, (_, i) => `m${i}`));
  });
});
