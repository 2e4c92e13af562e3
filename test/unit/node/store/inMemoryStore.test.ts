import { strict as assert } from 'assert';
import { mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Message } from '../../../../src/core/model/message';
import { newId } from '../../../../src/core/model/ids';
import { openStore } from '../../../../src/node/store';

const message = (id: string, createdAt: number): Message => ({ id, role: 'user', kind: 'user', content: `text ${id}`, agentVisible: true, userVisible: true, createdAt });

describe('a store kept in memory (the replay CLI’s)', function () {
  this.timeout(60_000);

  it('reads back everything written, results included, and never writes to its folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tally-in-memory-'));
    try {
      const store = await openStore(folder, { inMemory: true });
      const { id } = await store.createSession({ title: 'replay' });
      await store.putMessages(id, Array.from({ length: 50 }, (_, i) => message(`m${i}`, i + 1)));
      const content = Buffer.from('FAIL case 7\n'.repeat(5_000));
      const blob = await store.putBlob(id, { toolName: 'run_command', toolCallId: 'c7', content });
      await store.flush();
      assert.equal((await store.loadTranscript(id)).length, 50);
      assert.deepEqual(Buffer.from((await store.readBlob(id, blob.id, 0, content.length)).bytes), content);
      assert.deepEqual((await store.listBlobs(id)).map((b) => b.id), [blob.id]);
      await store.close();
      assert.deepEqual(readdirSync(folder), [], 'nothing written to the folder');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('ids drawn from the random pool stay unique and sort by time', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('r'));
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every((id) => /^r[0-9a-z]{9}[0-9a-f]{12}$/.test(id)), ids[0]);
    assert.deepEqual([...ids].sort((a, b) => a.slice(0, 10).localeCompare(b.slice(0, 10))).map((id) => id.slice(0, 10)), ids.map((id) => id.slice(0, 10)));
  });
});
