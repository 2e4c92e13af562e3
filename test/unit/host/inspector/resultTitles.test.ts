import { strict as assert } from 'assert';
import type { BlobInfo } from '../../../../src/core/ports/blobStore';
import { resultTitles } from '../../../../src/host/inspector/resultTitles';
import { withSessionReadCache } from '../../../../src/host/session/sessionReadCache';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';
import { toolStep, writeToolSteps } from '../../node/store/fixtures/toolSteps';

const SESSION = 'stitles';
const output = 'test output line\n'.repeat(300);

describe('titles of offloaded results', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-titles-');

  it('reads the session’s index of calls once; a result added later is named from the newest messages', async () => {
    const folder = stores.folder();
    await writeToolSteps(await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 32 * 1024 }), SESSION, 40, output, 4);
    const inner = await stores.openStore(folder, { debounceMs: 1e9 });
    let indexReads = 0;
    const loadToolCallIndex = inner.loadToolCallIndex.bind(inner);
    inner.loadToolCallIndex = (id) => {
      indexReads++;
      return loadToolCallIndex(id);
    };
    const store = withSessionReadCache(inner);
    const blobs: BlobInfo[] = [await store.putBlob(SESSION, { toolName: 'run_command', toolCallId: 'call_0', content: new TextEncoder().encode(output) })];
    assert.deepEqual(Object.values(await resultTitles(SESSION, blobs, [], store)), ['run_command npm test -- case0']);
    assert.equal(indexReads, 1);

    await store.putMessages(SESSION, toolStep(40, output));
    blobs.push(await store.putBlob(SESSION, { toolName: 'run_command', toolCallId: 'call_40', content: new TextEncoder().encode(`${output}40`) }));
    const titles = await resultTitles(SESSION, blobs, [], store);
    assert.deepEqual(blobs.map((b) => titles[b.id]), ['run_command npm test -- case0', 'run_command npm test -- case40']);
    assert.equal(indexReads, 1, 'the new result’s call came from the newest messages, not another read of every segment');

    // A result offloaded before its message is stored (the call is): named all the same, still without the index.
    const [callOnly] = toolStep(41, output);
    await store.putMessages(SESSION, [callOnly]);
    blobs.push(await store.putBlob(SESSION, { toolName: 'run_command', toolCallId: 'call_41', content: new TextEncoder().encode(`${output}41`) }));
    assert.equal((await resultTitles(SESSION, blobs, [], store))[blobs[2].id], 'run_command npm test -- case41');
    assert.equal(indexReads, 1);
  });
});
