import { strict as assert } from 'assert';
import { randomBytes } from 'crypto';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { basename, join } from 'path';
import type { StoreProblem } from '../../../../src/core/ports/sessionStore';
import { BLOB_PART_BYTES } from '../../../../src/node/store/blobs/blobFiles';
import { storeFolderPerTest } from './fixtures/storeFolder';
import { DAMAGES, damageFile, filesUnder, message, sha256 } from './fixtures/storeFiles';

describe('sql.js store: damaged files', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-store-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  for (const [name, damage] of DAMAGES) {
    it(`sets a ${name} file aside, reports it, and keeps working`, async () => {
      let store = await openStore(folder, { debounceMs: 5 });
      const good = await store.createSession({ title: 'good' });
      const bad = await store.createSession({ title: 'bad' });
      await store.putMessages(good.id, [message('g1', 1)]);
      await store.putMessages(bad.id, [message('b1', 1)]);
      await store.close();
      const victim = filesUnder(join(folder, 'sessions', bad.id)).find((f) => /\.seg0\.sqlite$/.test(f))!;
      writeFileSync(victim, damage(readFileSync(victim)));
      store = await openStore(folder);
      const problems: string[] = [];
      store.onProblem((p) => problems.push(p.kind));
      assert.deepEqual((await store.loadTranscript(bad.id)).map((m) => m.id), [], 'the damaged data is not trusted');
      assert.deepEqual((await store.loadTranscript(good.id)).map((m) => m.id), ['g1'], 'the rest loads');
      assert.deepEqual(problems, ['corrupt']);
      assert.ok(store.problems[0].movedTo && existsSync(store.problems[0].movedTo), 'moved aside with a timestamp');
      assert.match(store.problems[0].movedTo!, /\.corrupt-\d{4}-\d\d-\d\dT/);
      await store.putMessages(bad.id, [message('b2', 2)]);
      await store.close();
      store = await openStore(folder);
      assert.deepEqual((await store.loadTranscript(bad.id)).map((m) => m.id), ['b2'], 'new writes go to a fresh file');
      await store.close();
    });
  }

  for (const [name, damage] of DAMAGES) {
    it(`a ${name} session info file does not orphan the session: it is listed again, rebuilt from its messages`, async () => {
      let store = await openStore(folder, { debounceMs: 5 });
      const session = await store.createSession({ title: 'original title' });
      const other = await store.createSession({ title: 'other' });
      await store.putMessages(session.id, [
        message('a1', 1_000, '  Fix the flaky login test in the auth module, it fails on CI every other run\nsecond line'),
        { ...message('a2', 2_000, 'on it'), role: 'assistant', kind: 'assistant' },
        message('a3', 3_000, 'thanks'),
      ]);
      await store.putMessages(other.id, [message('o1', 1)]);
      await store.close();
      const victim = join(folder, 'sessions', session.id, `${store.writer}.info.sqlite`);
      damageFile(victim, damage);

      store = await openStore(folder);
      const seen: StoreProblem[] = [];
      store.onProblem((p) => seen.push(p));
      const listed = await store.listSessions();
      assert.deepEqual(listed.map((s) => s.id).sort(), [session.id, other.id].sort(), 'the session is listed');
      const recovered = await store.getSession(session.id);
      assert.deepEqual(recovered, { id: session.id, title: 'Fix the flaky login test in the auth module, it fails on CI…', createdAt: 1_000, updatedAt: 3_000, model: undefined, origin: undefined });
      assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['a1', 'a2', 'a3'], 'its whole transcript loads');
      assert.deepEqual(seen.map((p) => p.kind), ['corrupt', 'recovered']);
      assert.equal(seen[0].file, victim);
      assert.ok(seen[0].movedTo && existsSync(seen[0].movedTo), 'the damaged file is set aside');
      assert.match(seen[1].message, /rebuilt it from its 3 messages/);
      await store.close();

      store = await openStore(folder);
      assert.equal((await store.getSession(session.id))?.title, recovered!.title, 'the rebuilt row was saved');
      await store.updateSession(session.id, { title: 'renamed' });
      await store.close();
      store = await openStore(folder);
      assert.equal((await store.getSession(session.id))?.title, 'renamed', 'a later row wins over the rebuilt one');
      assert.deepEqual(store.problems, [], 'recovered once, not on every open');
      await store.close();
    });

    it(`a ${name} snapshot file: resume falls back to an older valid snapshot, or to the transcript`, async () => {
      const first = await openStore(folder, { debounceMs: 5 });
      const session = await first.createSession({ title: 'snap' });
      await first.putMessages(session.id, [message('m1', 1), message('m2', 2)]);
      await first.saveSnapshot({ sessionId: session.id, messages: [message('m2', 2)], tokenCount: 10, compactionId: 'c1', createdAt: 2 });
      await first.close();
      const second = await openStore(folder, { debounceMs: 5 });
      await second.putMessages(session.id, [message('m3', 3)]);
      await second.saveSnapshot({ sessionId: session.id, messages: [message('m3', 3)], tokenCount: 20, compactionId: 'c2', createdAt: 3 });
      await second.close();
      const dir = join(folder, 'sessions', session.id);
      damageFile(join(dir, `${second.writer}.snap.sqlite`), damage);

      let store = await openStore(folder);
      assert.equal((await store.loadSnapshot(session.id))?.compactionId, 'c1', 'the older valid snapshot');
      assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['m1', 'm2', 'm3'], 'the transcript still has everything');
      assert.equal((await store.getSession(session.id))?.title, 'snap');
      assert.deepEqual(store.problems.map((p) => [p.kind, basename(p.file)]), [['corrupt', `${second.writer}.snap.sqlite`]]);
      assert.ok(existsSync(store.problems[0].movedTo!));
      await store.close();

      damageFile(join(dir, `${first.writer}.snap.sqlite`), damage);
      store = await openStore(folder);
      assert.equal(await store.loadSnapshot(session.id), undefined, 'no snapshot: resume replays the transcript');
      assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['m1', 'm2', 'm3']);
      assert.deepEqual(store.problems.map((p) => p.kind), ['corrupt']);
      await store.close();
    });

    it(`a ${name} stored-result ref file: "could not be read", set aside and reported; the rest loads`, async () => {
      let store = await openStore(folder, { debounceMs: 5 });
      const session = await store.createSession({ title: 'blobs' });
      await store.putMessages(session.id, [message('m1', 1)]);
      const big = await store.putBlob(session.id, { toolName: 'dump', content: randomBytes(BLOB_PART_BYTES + 100_000) });
      const smallContent = randomBytes(100_000);
      const small = await store.putBlob(session.id, { toolName: 'dump', content: smallContent });
      await store.close();
      const victim = join(folder, 'blobs', `${big.id}.ref`);
      damageFile(victim, damage);

      store = await openStore(folder);
      await assert.rejects(store.getBlobInfo(session.id, big.id), new RegExp(`the stored result "${big.id}" could not be read: its file was damaged and has been set aside`));
      await assert.rejects(store.readBlob(session.id, big.id, 0, 10), /could not be read/);
      assert.deepEqual(store.problems.map((p) => [p.kind, p.file]), [['corrupt', victim]]);
      assert.ok(existsSync(store.problems[0].movedTo!) && !existsSync(victim), 'set aside');
      assert.ok(Buffer.from((await store.readBlob(session.id, small.id, 0, 200_000)).bytes).equals(smallContent), 'the other result reads');
      assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['m1']);
      assert.deepEqual((await store.listBlobs(session.id)).map((b) => b.id).sort(), [big.id, small.id].sort(), 'the session still indexes both');
      await store.close();

      const later = Date.now() + 10 * 60_000; // past the leftover clean-up age
      store = await openStore(folder, { now: () => later });
      await assert.rejects(store.getBlobInfo(session.id, big.id), /could not be read: its file was damaged/, 'still explained after a restart');
      assert.equal(await store.getBlobInfo(session.id, 'rneverstored1'), undefined, 'an unknown ref is still just unknown');
      assert.deepEqual(store.problems, []);
      await store.close();
    });

    it(`a ${name} stored-result content file: "could not be read", set aside and reported; the rest loads`, async () => {
      let store = await openStore(folder, { debounceMs: 5 });
      const session = await store.createSession({ title: 'parts' });
      await store.putMessages(session.id, [message('m1', 1)]);
      const content = randomBytes(2 * BLOB_PART_BYTES + 100_000);
      const big = await store.putBlob(session.id, { toolName: 'dump', content });
      const otherContent = randomBytes(50_000);
      const other = await store.putBlob(session.id, { toolName: 'dump', content: otherContent });
      await store.close();
      const victim = join(folder, 'blobs', `${sha256(content)}.blob`);
      damageFile(victim, damage);

      store = await openStore(folder);
      assert.equal((await store.getBlobInfo(session.id, big.id))?.sha256, sha256(content), 'its description still reads');
      await assert.rejects(store.readBlob(session.id, big.id, 0, content.length), new RegExp(`the stored result "${big.id}" could not be read: its file was damaged and has been set aside .*(bytes|SHA-256)`));
      await assert.rejects(store.readBlob(session.id, big.id, 0, 10), new RegExp(`the stored result "${big.id}" could not be read: its file was damaged and has been set aside`), 'still explained');
      assert.deepEqual(store.problems.map((p) => [p.kind, p.file]), [['corrupt', victim]]);
      assert.ok(existsSync(store.problems[0].movedTo!) && !existsSync(victim), 'set aside');
      assert.ok(Buffer.from((await store.readBlob(session.id, other.id, 0, 50_000)).bytes).equals(otherContent), 'the other result reads');
      assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['m1']);
      assert.equal((await store.getSession(session.id))?.title, 'parts');
      await store.close();
    });
  }
});
