import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { answeredCall } from '../../../../src/core/context/answeredCall';
import { segmentsReadDuring } from '../../node/store/fixtures/filesRead';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';
import { toolStep, writeToolSteps } from '../../node/store/fixtures/toolSteps';

const SESSION = 'sanswered';
const output = 'test output line\n'.repeat(400);

/** Counts the store's whole-session reads that answeredCall must avoid when the call is near. */
function countingIndexReads(store: SessionStore): { store: SessionStore; indexReads: () => number } {
  let reads = 0;
  const counted = Object.create(store) as SessionStore;
  counted.loadToolCallIndex = (id) => {
    reads++;
    return store.loadToolCallIndex(id);
  };
  return { store: counted, indexReads: () => reads };
}

describe('the call a tool result answers', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-answered-');

  async function longSession(folder: string): Promise<void> {
    await writeToolSteps(await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 32 * 1024 }), SESSION, 60, output, 3);
  }

  it('is found among the messages just before the result, reading only the files that hold them', async () => {
    const folder = stores.folder();
    await longSession(folder);
    const { store, indexReads } = countingIndexReads(await stores.openStore(folder, { debounceMs: 1e9 }));
    const [result] = await store.loadMessages(SESSION, ['t7']);
    const { result: call, read } = await segmentsReadDuring(() => answeredCall(store, SESSION, result));
    assert.deepEqual(call, { id: 'call_7', name: 'run_command', arguments: JSON.stringify({ command: 'npm test -- case7' }) });
    assert.equal(indexReads(), 0, 'no read of every call in the session');
    assert.ok(read.length <= 4, `${read.length} segment files read`);
  });

  it('a call made long before its result is found through the session’s index of calls', async () => {
    const folder = stores.folder();
    await longSession(folder);
    const { store, indexReads } = countingIndexReads(await stores.openStore(folder, { debounceMs: 1e9 }));
    // The result of step 2's call comes after 50 more steps.
    const late: Message = { ...toolStep(2, output)[1], id: 'late', createdAt: 10_000 };
    await store.putMessages(SESSION, [late]);
    const call = await answeredCall(store, SESSION, late);
    assert.equal(call?.arguments, JSON.stringify({ command: 'npm test -- case2' }));
    assert.equal(indexReads(), 1);
  });

  it('a call among the messages already at hand (a planned request) reads nothing, and a message that answers no call has none', async () => {
    const folder = stores.folder();
    await longSession(folder);
    const { store, indexReads } = countingIndexReads(await stores.openStore(folder, { debounceMs: 1e9 }));
    const planned = toolStep(99, output, 'call_planned');
    const { result: call, read } = await segmentsReadDuring(() => answeredCall(store, SESSION, planned[1], planned));
    assert.equal(call?.id, 'call_planned');
    assert.equal(read.length + indexReads(), 0);
    assert.equal(await answeredCall(store, SESSION, planned[0]), undefined, 'an assistant message is no result');
  });
});
