import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'sread';
const body = 'y'.repeat(1_000);
const message = (id: string, createdAt: number): Message => ({ id, role: 'user', kind: 'user', content: `${id} ${body}`, agentVisible: true, userVisible: true, createdAt });

describe('reading a session while closed windows’ files are merged', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-merge-read-');

  it('a read does not wait for the merge, and every read during it sees every message exactly once', async () => {
    const folder = stores.folder();
    const windows = 20;
    for (let w = 0; w < windows; w++) {
      const store = await stores.openStore(folder, { debounceMs: 1e9 });
      if (w === 0) await store.createSession({ id: SESSION, title: 'read while merging' });
      await store.putMessages(SESSION, Array.from({ length: 200 }, (_, i) => message(`w${w}-${i}`, w * 1000 + i + 1)));
      await store.close();
    }
    const log: string[] = [];
    const store = await stores.openStore(folder, { debounceMs: 1e9, log: (line) => log.push(line) });
    const recent = await store.loadRecentTranscript(SESSION, 10);
    let merged = false;
    const merging = store.closedWindowsMerged().then(() => (merged = true));
    assert.deepEqual(recent.messages.map((m) => m.id), Array.from({ length: 10 }, (_, i) => `w19-${190 + i}`));
    assert.equal(merged, false, 'the recent messages came while the merge was still running');
    let reads = 0;
    while (!merged) {
      const [transcript, again] = await Promise.all([store.loadTranscript(SESSION), store.loadRecentTranscript(SESSION, 10)]);
      assert.equal(transcript.length, windows * 200, `read ${reads}: every message`);
      assert.equal(new Set(transcript.map((m) => m.id)).size, windows * 200, 'none twice');
      assert.equal(again.messages.length, 10);
      reads++;
    }
    await merging;
    assert.ok(reads > 0, 'reads ran during the merge');
    assert.ok(log.some((l) => l.includes('merged')), 'the merge ran to the end');
    assert.equal((await store.loadTranscript(SESSION)).length, windows * 200, 'and after it');
  });
});
