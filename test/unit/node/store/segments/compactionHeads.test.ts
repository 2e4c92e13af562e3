import { strict as assert } from 'assert';
import { readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import { compactionHead, REMOVED_FIRST } from '../../../../../src/core/model/compactionHead';
import type { CompactionEventRecord } from '../../../../../src/core/model/records';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { longRecord } from '../fixtures/compactionRecords';
import { segmentsReadDuring } from '../fixtures/filesRead';
import { filesUnder } from '../fixtures/storeFiles';
import { storeFolderPerTest } from '../fixtures/storeFolder';

/**
 * Opening a session lists its compactions for the chat and the inspector. A long session's records
 * hold tens of thousands of removed items and added pointers: the open lists each record's head
 * (figures, summary, the first removed items with the count and tokens of all), and the whole
 * lists are read only when asked for (a page of removed items, a rewind, an export).
 */
const SESSION = 'sheads';
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("a session's compactions listed by their heads", function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-compaction-heads-');

  /** A short record (one row), a long one (in pieces) and another long one, in a session another window closed. */
  async function closedSession(folder: string): Promise<CompactionEventRecord[]> {
    const records = [longRecord('c0', SESSION, 3, 1, 500), longRecord('c1', SESSION, 3_000, 3_000, 600), longRecord('c2', SESSION, 1_200, 400, 700)];
    const writing = await stores.openStore(folder, { debounceMs: 1e9, sync: false });
    await writing.createSession({ id: SESSION, title: 'heads' });
    for (const r of records) await writing.addCompactionEvent(r);
    await writing.close();
    return records;
  }

  it('gives every record its figures, its first removed items and the count and tokens of all, without reading the pieces again', async () => {
    const folder = stores.folder();
    const records = await closedSession(folder);
    // A window lists the heads once (the segment is read, its facts recorded), then the next window opens.
    const first = await stores.openStore(folder, { debounceMs: 1e9 });
    assert.deepEqual(plain(await first.listCompactionHeads(SESSION)), plain(records.map(compactionHead)));
    await first.close();

    const next = await stores.openStore(folder, { debounceMs: 1e9 });
    const { result: heads, read } = await segmentsReadDuring(() => next.listCompactionHeads(SESSION));
    assert.deepEqual(read, [], 'no segment file loaded: the heads come from the facts kept beside the segments');
    assert.deepEqual(heads.map((h) => [h.id, h.removedCount, h.removedFirst.length]), [['c0', 3, 3], ['c1', 3_000, REMOVED_FIRST], ['c2', 1_200, REMOVED_FIRST]]);
    assert.equal(heads[1].removedTokens, records[1].removed.reduce((n, item) => n + item.tokens, 0));
    for (const head of heads) assert.ok(!('removed' in head) && !('added' in head) && !('pieces' in head), `${head.id} carries no whole list`);
    const facts = readFileSync(join(folder, 'sessions', SESSION, 'segments.json'), 'utf8');
    assert.ok(!facts.includes('"pieceOf'), 'the facts keep the heads, not the pieces of the long records');
    assert.ok(facts.length < JSON.stringify(records[1]).length / 4, `the facts (${facts.length} chars) are a fraction of one long record (${JSON.stringify(records[1]).length})`);

    // The whole records are still there for what needs them.
    assert.deepEqual(plain(await next.loadCompactionEvent(SESSION, 'c1')), plain(records[1]));
    assert.deepEqual(plain(await next.listCompactionEvents(SESSION)), plain(records));
    assert.equal(await next.loadCompactionEvent(SESSION, 'c9'), undefined);
    await next.close();
  });

  it('a long record whose head an older build wrote (no removed items on it) is listed from its pieces, with the same figures', async () => {
    const folder = stores.folder();
    const records = await closedSession(folder);
    // Make the heads the way builds before this one wrote them: the figures, `removed: []`, the number of pieces.
    const SQL = await sqlRuntime();
    for (const path of filesUnder(folder).filter((p) => /\.seg\d+\.sqlite$/.test(p))) {
      const db = new SQL.Database(readFileSync(path));
      for (const [id, body] of (db.exec("SELECT id, body FROM compaction_events WHERE body LIKE '%\"pieces\":%' AND instr(id, '#') = 0")[0]?.values ?? []) as Array<[string, string]>) {
        const { removedFirst: _first, removedCount: _count, removedTokens: _tokens, ...older } = JSON.parse(body) as Record<string, unknown>;
        db.run('UPDATE compaction_events SET body = ? WHERE id = ?', [JSON.stringify(older), id]);
      }
      writeFileSync(path, db.export());
      db.close();
    }
    rmSync(join(folder, 'sessions', SESSION, 'segments.json'), { force: true });
    rmSync(join(folder, 'sessions', SESSION, 'segments.log'), { force: true });

    const reopened = await stores.openStore(folder, { debounceMs: 1e9 });
    assert.deepEqual(plain(await reopened.listCompactionHeads(SESSION)), plain(records.map(compactionHead)));
    assert.deepEqual(plain(await reopened.listCompactionEvents(SESSION)), plain(records));
    await reopened.close();
  });
});
