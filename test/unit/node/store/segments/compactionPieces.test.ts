import { strict as assert } from 'assert';
import { fork } from 'child_process';
import { join } from 'path';
import type { CompactionEventRecord } from '../../../../../src/core/model/records';
import { assembleCompactionRecords } from '../../../../../src/node/store/segments/compactionPieces';
import { turnTicker } from '../../../../support/eventLoopTurns';
import { longRecord, PREVIEW_MARK } from '../fixtures/compactionRecords';
import { exited } from '../fixtures/appenderProcess';
import { storeFolderPerTest } from '../fixtures/storeFolder';

/**
 * A compaction of 50,000 messages records tens of thousands of removed items and added pointers.
 * Written as one row, sql.js held the extension host for seconds; it is written a piece at a time
 * with turns of the event loop between them, read back whole, and never saved half.
 */
const SESSION = 'scompact';
const ROUNDS = 5;

/** Calls `work` while counting the removed items serialized between two turns of the event loop (the most). */
async function mostSerializedWithoutATurn(work: () => Promise<void>): Promise<number> {
  const original = JSON.stringify;
  const ticker = turnTicker();
  let lastTurn = -1;
  let sinceTurn = 0;
  let most = 0;
  const itemsIn = (value: unknown): number => {
    if (typeof value !== 'object' || value === null) return 0;
    const v = value as { preview?: unknown; removed?: unknown };
    if (typeof v.preview === 'string' && v.preview.startsWith(PREVIEW_MARK)) return 1;
    return Array.isArray(v.removed) ? v.removed.filter((item: { preview?: string }) => item.preview?.startsWith(PREVIEW_MARK)).length : 0;
  };
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    const items = itemsIn(value);
    if (items) {
      if (ticker.now() !== lastTurn) [lastTurn, sinceTurn] = [ticker.now(), 0];
      sinceTurn += items;
      most = Math.max(most, sinceTurn);
    }
    return (original as (...args: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    await work();
    return most;
  } finally {
    JSON.stringify = original;
    ticker.stop();
  }
}

const same = (a: CompactionEventRecord | undefined, b: CompactionEventRecord) => assert.deepEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));

describe('a long compaction record in the store', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-compaction-pieces-');

  it('is written a slice at a time (at most a sixth of 3,000 removed items without a turn) and read back whole, in order among short ones', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9, sync: false });
    await store.createSession({ id: SESSION, title: 'long' });
    const short = longRecord('c0', SESSION, 3, 1, 500);
    const long = longRecord('c1', SESSION, 3_000, 3_000, 600);
    const later = longRecord('c2', SESSION, 0, 0, 700);
    await store.addCompactionEvent(short);
    const most = await mostSerializedWithoutATurn(() => store.addCompactionEvent(long));
    await store.addCompactionEvent(later);
    assert.ok(most <= 500, `at most 500 of 3,000 items serialized without a turn (${most})`);
    const listed = await store.listCompactionEvents(SESSION);
    assert.deepEqual(listed.map((r) => r.id), ['c0', 'c1', 'c2'], 'the records, each once, in order; no piece listed as a record');
    same(listed[1], long);
    same(listed[0], short);
    await store.close();

    const reopened = await stores.openStore(folder, { debounceMs: 1e9 });
    const fromDisk = await reopened.listCompactionEvents(SESSION);
    assert.deepEqual(fromDisk.map((r) => r.id), ['c0', 'c1', 'c2']);
    same(fromDisk[1], long);
  });

  it('is saved whole when a save is asked for while its pieces go in', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9, sync: false });
    await store.createSession({ id: SESSION, title: 'long' });
    const long = longRecord('c1', SESSION, 2_000, 2_000);
    const writing = store.addCompactionEvent(long);
    await new Promise((resolve) => setImmediate(resolve)); // the first pieces are in
    const saved = store.flush();
    const other = await stores.openStore(folder, { debounceMs: 1e9 });
    await saved;
    same((await other.listCompactionEvents(SESSION))[0], long);
    await writing;
  });

  it('a process killed at random moments while writing long records leaves each record whole or absent (5 kills)', async function () {
    const folder = stores.folder();
    const child = (round: number) => fork(join(__dirname, '..', 'fixtures', 'compactionWriter.ts'), [folder, SESSION, `r${round}`, '1000', '1000'], { execArgv: ['-r', join(__dirname, '..', '..', '..', '..', 'register.cjs')], stdio: 'pipe' });
    this.timeout(300_000); // kill-and-recover rounds: a correctness test, slow on a loaded machine
    let wholeSeen = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const writer = child(round);
      await new Promise<void>((resolve, reject) => {
        writer.on('message', () => resolve());
        writer.on('exit', (code) => reject(new Error(`the writer exited (${code})`)));
      });
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300))); // a random moment to kill at, not a wait for anything
      writer.kill('SIGKILL');
      await exited(writer);
      const store = await stores.openStore(folder, { debounceMs: 1e9 });
      assert.deepEqual(store.problems, [], `round ${round}: no damaged file`);
      const records = await store.listCompactionEvents(SESSION);
      const mine = records.filter((r) => r.id.startsWith(`r${round}c`));
      assert.ok(mine.length >= 1, `round ${round}: the record saved before the kill is there`);
      for (const r of records) {
        assert.equal(r.removed.length, 1_000, `${r.id}: every removed item`);
        assert.equal(r.added?.length, 1_000, `${r.id}: every added item`);
        assert.equal(r.removed[999].messageId, `${r.id}-m999`);
      }
      wholeSeen += mine.length;
      await store.close();
    }
    assert.ok(wholeSeen >= ROUNDS);
  });

  it('leaves out a record one of whose pieces is missing, and pieces whose record is not there', () => {
    const head = { ...longRecord('c1', SESSION, 0, 0), pieces: 2 };
    const piece = (n: number) => ({ pieceOf: 'c1', piece: n, list: 'removed' as const, items: longRecord('c1', SESSION, 2, 0).removed.slice(n, n + 1) });
    assert.deepEqual(assembleCompactionRecords([head, piece(0)]), [], 'a piece missing: not shown half');
    assert.deepEqual(assembleCompactionRecords([piece(0), piece(1)]), [], 'pieces alone: no record');
    assert.deepEqual(assembleCompactionRecords([piece(1), head, piece(0)])[0].removed.map((r) => r.messageId), ['c1-m0', 'c1-m1'], 'whole, in order');
  });
});
