import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { resumeSession } from '../../../../src/core/context/resume';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';

const message = (id: string, createdAt: number, extra: Partial<Message> = {}): Message => ({ id, role: 'user', kind: 'user', content: `text of ${id} "pinned":true`, agentVisible: true, userVisible: true, createdAt, ...extra });

describe('resuming a session from its latest snapshot', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-resume-');

  it('reads only the transcript after the snapshot, keeps pins set since, and falls back to the whole transcript without one', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 1e9 });
    const { id } = await store.createSession({ title: 'long' });
    const old = Array.from({ length: 500 }, (_, i) => message(`old${i}`, i + 1));
    await store.putMessages(id, old);
    await store.saveSnapshot({ sessionId: id, compactionId: 'c1', tokenCount: 10, createdAt: 500, messages: [message('summary', 500), old[498], old[499]] });
    await store.putMessages(id, [{ ...old[498], pinned: true }]); // pinned after the snapshot was taken
    await store.putMessages(id, [message('new1', 501), message('new2', 502)]);
    await store.flush();

    const returned: number[] = [];
    const counting: SessionStore = Object.create(store, {
      loadTranscript: { value: async (sessionId: string, options?: { createdAfter?: number }) => {
        const messages = await store.loadTranscript(sessionId, options);
        returned.push(messages.length);
        return messages;
      } },
    });
    const resumed = await resumeSession(counting, id);
    assert.deepEqual(resumed.working.map((m) => m.id), ['summary', 'old498', 'old499', 'new1', 'new2']);
    assert.equal(resumed.working.find((m) => m.id === 'old498')?.pinned, true, 'the pin set after the snapshot is kept');
    assert.ok(!resumed.working.find((m) => m.id === 'old499')?.pinned, 'a quoted "pinned":true in the content is not a pin');
    assert.equal(resumed.lastCreatedAt, 502);
    assert.deepEqual(returned, [2], 'only the two messages after the snapshot were read');

    const fresh = await store.createSession({ title: 'no snapshot' });
    await store.putMessages(fresh.id, [message('a', 1), message('b', 2)]);
    returned.length = 0;
    assert.deepEqual((await resumeSession(counting, fresh.id)).working.map((m) => m.id), ['a', 'b']);
    assert.deepEqual(returned, [2], 'without a snapshot, the whole transcript');
  });
});
