import { strict as assert } from 'assert';
import { existsSync } from 'fs';
import type { SqlJsStore } from '../../../../src/node/store';
import { BLOB_BYTES, type Ack } from './fixtures/appender';
import { exited, runAppender } from './fixtures/appenderProcess';
import { storeFolderPerTest } from './fixtures/storeFolder';
import { filesUnder, message, sha256 } from './fixtures/storeFiles';

describe('sql.js store: several processes, and processes killed while saving', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-store-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  for (const processes of [2, 4]) {
    it(`${processes} processes appending to one storage folder lose nothing`, async () => {
      const children = Array.from({ length: processes }, (_, p) => runAppender(folder, 'sshared', `p${p}`, 60));
      const codes = await Promise.all(children.map(exited));
      assert.deepEqual(codes, children.map(() => 0));
      const store = await openStore(folder);
      const ids = new Set((await store.loadTranscript('sshared')).map((m) => m.id));
      for (let p = 0; p < processes; p++) for (let i = 0; i < 60; i++) assert.ok(ids.has(`p${p}-${i}`), `p${p}-${i} is present`);
      assert.equal(ids.size, processes * 60);
      assert.equal((await store.listSessions()).length, 1);
      await store.close();
    });
  }

  it('a process killed in the middle of saves leaves a consistent store (20 kills)', async () => {
    let recovered = 0;
    for (let round = 0; round < 20; round++) {
      const child = runAppender(folder, 'scrash', `r${round}`, 100_000, 'crash');
      await new Promise<void>((resolve) => child.on('message', () => resolve()));
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 40))); // a random moment to kill at
      child.kill('SIGKILL');
      await exited(child);
      const store: SqlJsStore = await openStore(folder);
      const transcript = await store.loadTranscript('scrash');
      assert.deepEqual(store.problems, [], `round ${round}: no corrupt file`);
      const mine = transcript.filter((m) => m.id.startsWith(`r${round}-`)).map((m) => Number(m.id.split('-')[1])).sort((a, b) => a - b);
      assert.ok(mine.length >= 5, `round ${round}: the flushed messages survived (${mine.length})`);
      assert.deepEqual(mine, mine.map((_, i) => i), `round ${round}: a prefix of what was written, no holes`);
      recovered++;
      await store.close();
    }
    assert.equal(recovered, 20);
  });

  it('a process killed at random moments while saving messages, large results, snapshots and titles loses nothing it acknowledged', async function () {
    this.timeout(240_000); // 30 kill-and-recover rounds: a correctness test, slow on a loaded machine
    const ROUNDS = 30;
    const started = Date.now();
    const order = (text: string | undefined, pattern: RegExp): [number, number] => {
      const m = text === undefined ? null : pattern.exec(text);
      return m ? [Number(m[1]), Number(m[2])] : [-1, -1];
    };
    const atLeast = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1]);
    const lastAcked: number[] = [];
    const ackedBlobs: Array<{ ref: string; sha256: string }> = [];
    let ackedSnapshot: string | undefined;
    let ackedTitle: string | undefined;
    let recovered = 0;
    let lost = 0;
    let beyondAck = 0;
    let interrupted = 0;
    const halfDone = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      const roundBlobs = ackedBlobs.length;
      const child = runAppender(folder, 'skill', `r${round}`, 100_000, 'crash-full');
      const gone = Promise.all([exited(child), new Promise((resolve) => child.on('disconnect', resolve))]);
      lastAcked[round] = -1;
      let firstAck!: () => void;
      const acknowledged = new Promise<void>((resolve) => (firstAck = resolve));
      child.on('message', (ack: Ack) => {
        lastAcked[round] = ack.acked;
        ackedBlobs.push(...ack.blobs);
        ackedSnapshot = ack.snapshot ?? ackedSnapshot;
        ackedTitle = ack.title ?? ackedTitle;
        firstAck();
      });
      await acknowledged;
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400))); // a random moment to kill at, not a wait for anything
      child.kill('SIGKILL');
      await gone; // every ack the child sent before it died has been received
      // A temp file, or parts of a result without its main file: the kill landed mid-write.
      const leftovers = filesUnder(folder).filter((f) => !halfDone.has(f) && (f.includes('.tmp-') || (/\.p\d+\.sqlite$/.test(f) && !existsSync(f.replace(/\.p\d+\.sqlite$/, '.sqlite')))));
      if (leftovers.length > 0) interrupted++;
      for (const f of leftovers) halfDone.add(f);

      const store = await openStore(folder);
      const transcript = new Set((await store.loadTranscript('skill')).map((m) => m.id));
      for (let r = 0; r <= round; r++) {
        const mine = [...transcript].filter((id) => id.startsWith(`r${r}-`)).map((id) => Number(id.split('-')[1])).sort((a, b) => a - b);
        assert.deepEqual(mine, mine.map((_, i) => i), `round ${round}: r${r} is a prefix of what was written, no holes`);
        const missing = Math.max(0, lastAcked[r] + 1 - mine.length);
        lost += r === round ? missing : 0;
        assert.equal(missing, 0, `round ${round}: every acknowledged message of r${r} is present (acked ${lastAcked[r]}, found ${mine.length})`);
        if (r === round) beyondAck += mine.length - (lastAcked[r] + 1);
      }
      for (const blob of ackedBlobs.slice(Math.max(0, roundBlobs - 1))) {
        const info = await store.getBlobInfo('skill', blob.ref);
        assert.equal(info?.sha256, blob.sha256, `round ${round}: result ${blob.ref} is described`);
        const slice = await store.readBlob('skill', blob.ref, 0, info!.byteSize);
        assert.equal(slice.bytes.length, BLOB_BYTES);
        assert.equal(sha256(slice.bytes), blob.sha256, `round ${round}: result ${blob.ref} reads back exactly`);
      }
      const snapshot = await store.loadSnapshot('skill');
      assert.ok(atLeast(order(snapshot?.compactionId, /^r(\d+)-c(\d+)$/), order(ackedSnapshot, /^r(\d+)-c(\d+)$/)), `round ${round}: snapshot ${snapshot?.compactionId} is at least ${ackedSnapshot}`);
      const session = await store.getSession('skill');
      assert.ok(atLeast(order(session?.title, /^r(\d+) title (\d+)$/), order(ackedTitle, /^r(\d+) title (\d+)$/)), `round ${round}: title "${session?.title}" is at least "${ackedTitle}"`);
      assert.equal((await store.listSessions()).length, 1);
      assert.deepEqual(store.problems, [], `round ${round}: no corrupt file, no problem`);
      await store.close();
      recovered++;
    }
    assert.deepEqual(filesUnder(folder).filter((f) => f.includes('.corrupt-')), []);

    // Everything acknowledged in every round, read once more by a fresh store.
    const store = await openStore(folder);
    for (const blob of ackedBlobs) assert.equal(sha256((await store.readBlob('skill', blob.ref, 0, BLOB_BYTES)).bytes), blob.sha256, `result ${blob.ref}`);
    assert.deepEqual(store.problems, []);
    await store.close();
    const acked = lastAcked.reduce((n, a) => n + a + 1, 0);
    console.log(`      kill test: ${ROUNDS} rounds, ${recovered} states recovered cleanly, ${interrupted} kills landed mid-write (temp file or parts left), ` +
      `${acked} acknowledged messages / ${ackedBlobs.length} results (${BLOB_BYTES} B each), ${lost} acknowledged messages lost, ` +
      `${beyondAck} unacknowledged messages also saved, ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.equal(recovered, ROUNDS);
    assert.equal(lost, 0);
  });
});
