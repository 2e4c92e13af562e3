import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { DEFAULT_MAX_OPEN_DATABASES } from '../../../../../src/node/store/files/databaseBudget';
import { storeFolderPerTest } from '../fixtures/storeFolder';

function message(sessionIndex: number): Message {
  return { id: `m${sessionIndex}`, role: 'user', kind: 'user', content: `first words of session ${sessionIndex}`, agentVisible: true, userVisible: true, createdAt: sessionIndex };
}

describe('the open-database bound while a window writes faster than it saves', function () {
  this.timeout(600_000);
  const stores = storeFolderPerTest('tally-open-bound-');

  it('6,000 sessions created in a tight loop: all readable, never more databases open than the bound', async () => {
    const folder = stores.folder();
    // The default debounce: the loop never yields long enough for a timed save, as when a
    // window creates sessions faster than it saves them.
    const store = await stores.openStore(folder, { sync: false });
    const created: Array<{ id: string; title: string }> = [];
    for (let i = 0; i < 6_000; i++) {
      const session = await store.createSession({ title: `session ${i}`, createdAt: i });
      await store.putMessages(session.id, [message(i)]);
      created.push(session);
    }
    const bound = store.openDatabases.max;
    assert.equal(bound, DEFAULT_MAX_OPEN_DATABASES);
    assert.ok(store.openDatabases.peak <= bound, `peak ${store.openDatabases.peak} open databases while creating, bound ${bound}`);

    // Read back in the same window: some sessions are still in memory, most were saved and closed.
    const listed = new Map((await store.listSessions()).map((s) => [s.id, s.title]));
    assert.deepEqual(listed, new Map(created.map((s) => [s.id, s.title])));
    for (const [i, session] of created.entries()) {
      assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.content), [`first words of session ${i}`], `messages of session ${i}`);
    }
    assert.ok(store.openDatabases.peak <= bound, `peak ${store.openDatabases.peak} open databases after reading, bound ${bound}`);
    assert.deepEqual(store.problems, []);
    await store.close();

    // And in the next window: every session was saved.
    const next = await stores.openStore(folder);
    assert.equal((await next.listSessions()).length, created.length);
    for (const [i, session] of created.entries()) {
      if (i % 100 === 0) assert.deepEqual((await next.loadTranscript(session.id)).map((m) => m.id), [`m${i}`]);
    }
  });
});
