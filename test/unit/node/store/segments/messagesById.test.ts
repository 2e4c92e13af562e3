import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'sbyid';
const output = 'build log line\n'.repeat(2_000);
const message = (id: string, createdAt: number, content = `${id} ${output}`): Message => ({ id, role: 'tool', kind: 'tool_result', toolCallId: `call-${id}`, content, agentVisible: true, userVisible: true, createdAt });

describe('reading messages by id', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-byid-');

  /** A window that wrote `count` messages, m0 … m(count - 1), over many small segments, then closed. */
  async function writeClosedWindow(folder: string, count: number): Promise<void> {
    const window = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 64 * 1024 });
    await window.createSession({ id: SESSION, title: 'by id' });
    for (let i = 0; i < count; i++) {
      await window.putMessages(SESSION, [message(`m${i}`, i + 1)]);
      await window.flush();
    }
    await window.close();
  }

  it('finds each message’s latest copy in any window’s files, oldest first, and skips ids not stored', async () => {
    const folder = stores.folder();
    await writeClosedWindow(folder, 40);
    const second = await stores.openStore(folder, { debounceMs: 1e9 });
    await second.putMessages(SESSION, [message('m3', 4, 'm3 rewritten by a later window'), message('m40', 41)]);
    await second.flush();

    const found = await second.loadMessages(SESSION, ['m40', 'm3', 'm17', 'gone']);
    assert.deepEqual(found.map((m) => m.id), ['m3', 'm17', 'm40']);
    assert.equal(found[0].content, 'm3 rewritten by a later window', 'the latest copy');
    assert.equal(found[1].content, `m17 ${output}`);
    assert.deepEqual(await second.loadMessages(SESSION, []), []);
  });
});
