import { strict as assert } from 'assert';
import { resumableSessions } from '../../../../src/core/context/resumableSessions';
import { msg } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

describe('Resume Session list', () => {
  it('leaves out sessions with no message, keeps the rest newest first (a real store on disk)', async () => {
    const { store, dispose } = await tempStore();
    try {
      const empty = await store.createSession({ title: 'New session', origin: 'chat' });
      const used = await store.createSession({ title: 'New session', origin: 'chat' });
      await store.putMessages(used.id, [msg({ role: 'user', content: 'fix the build' })]);
      await store.updateSession(used.id, { title: 'fix the build', updatedAt: used.updatedAt + 60_000 });
      const replay = await store.createSession({ title: 'replay of run.jsonl', origin: 'replay:run.jsonl' });
      await store.putMessages(replay.id, [msg({ role: 'user', content: 'recorded' })]);
      const renamedButEmpty = await store.createSession({ title: 'Named', origin: 'chat' });
      await store.flush();
      const listed = await resumableSessions(store, await store.listSessions());
      const ids = listed.map((s) => s.id);
      assert.ok(!ids.includes(empty.id), 'an empty "New session" is not offered');
      assert.ok(!ids.includes(renamedButEmpty.id), 'a session never used since it was created is not offered');
      assert.deepEqual(new Set(ids), new Set([used.id, replay.id]));
      assert.equal(ids[0], used.id, 'newest first');
    } finally {
      await dispose();
    }
  });
});
