import { strict as assert } from 'assert';
import { createHash, randomBytes } from 'crypto';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'fs';
import { join } from 'path';
import { nodeWriteFs, type WriteFs } from '../../../../../src/node/store/files/atomicFile';
import { BLOB_PART_BYTES } from '../../../../../src/node/store/blobs/blobFiles';
import { MIGRATIONS } from '../../../../../src/node/store/sql/schema';
import { newDatabase } from '../../../../../src/node/store/sql/connection';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Counts what reaches the disk: every write, fsync and folder fsync, in order. */
function countingFs(): { fs: WriteFs; calls: Array<[string, string]> } {
  const calls: Array<[string, string]> = [];
  const fs: WriteFs = {
    writeFileSynced: async (path, data) => (calls.push(['writeFileSynced', path]), nodeWriteFs.writeFileSynced(path, data)),
    writeFile: async (path, data, append) => (calls.push(['writeFile', path]), nodeWriteFs.writeFile(path, data, append)),
    syncFile: async (path) => (calls.push(['syncFile', path]), nodeWriteFs.syncFile(path)),
    rename: async (from, to) => (calls.push(['rename', to]), nodeWriteFs.rename(from, to)),
    syncDirectory: async (path) => (calls.push(['syncDirectory', path]), nodeWriteFs.syncDirectory(path)),
  };
  return { fs, calls };
}

describe('offloaded results stored as files', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-parts-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  it('writes a large result as one file named by its hash and reads any range back exactly', async () => {
    const store = await openStore(folder);
    const content = randomBytes(2 * BLOB_PART_BYTES + 1_000);
    const info = await store.putBlob('s1', { toolName: 'dump', content });
    assert.deepEqual(readdirSync(join(folder, 'blobs')).sort(), [`${sha256(content)}.blob`, `${info.id}.ref`].sort());
    const ranges: Array<[number, number]> = [[0, 10], [BLOB_PART_BYTES - 5, 10], [BLOB_PART_BYTES - 1, BLOB_PART_BYTES + 2], [content.length - 3, 100], [content.length, 10], [0, content.length]];
    for (const [offset, limit] of ranges) {
      const slice = await store.readBlob('s1', info.id, offset, limit);
      assert.ok(Buffer.from(slice.bytes).equals(content.subarray(offset, offset + limit)), `range ${offset}+${limit}`);
      assert.equal(slice.totalBytes, content.length);
    }
    assert.equal(info.sha256, sha256(content));
    await store.close();
    const reopened = await openStore(folder);
    assert.ok(Buffer.from((await reopened.readBlob('s1', info.id, BLOB_PART_BYTES - 1, 2)).bytes).equals(content.subarray(BLOB_PART_BYTES - 1, BLOB_PART_BYTES + 1)), 'after a restart');
    assert.deepEqual(reopened.problems, []);
  });

  it('stores the same content once, under two refs that both read', async () => {
    const store = await openStore(folder);
    const content = Buffer.from('same output\n'.repeat(500));
    const a = await store.putBlob('s1', { toolName: 'run_command', content });
    const b = await store.putBlob('s2', { toolName: 'run_command', content });
    assert.notEqual(a.id, b.id);
    assert.deepEqual(readdirSync(join(folder, 'blobs')).filter((n) => n.endsWith('.blob')), [`${sha256(content)}.blob`]);
    assert.equal((await store.getBlobInfo('s2', b.id))?.sessionId, 's2');
    assert.equal(Buffer.from((await store.readBlob('s1', a.id, 0, 12)).bytes).toString(), 'same output\n');
  });

  it('waits for the disk once per save, not once per result: fsyncs are batched before the session files', async () => {
    const { fs, calls } = countingFs();
    const store = await openStore(folder, { fs, debounceMs: 1e9 });
    const session = await store.createSession({ title: 'batch' });
    for (let i = 0; i < 5; i++) await store.putBlob(session.id, { toolName: 'dump', content: Buffer.from(`output ${i}\n`) });
    assert.equal(calls.filter(([op]) => op === 'syncFile' || op === 'syncDirectory' || op === 'writeFileSynced').length, 0, 'nothing waited for the disk yet');
    await store.flush();
    const blobSyncs = calls.filter(([op, path]) => op === 'syncFile' && path.includes('blobs'));
    assert.equal(blobSyncs.length, 10, 'one fsync per file written (5 contents + 5 refs), all in the save');
    assert.equal(calls.filter(([op, path]) => op === 'syncDirectory' && path.endsWith('blobs')).length, 1, 'the blobs folder is synced once');
    const lastBlobSync = calls.map(([op, path]) => path.includes('blobs') && (op === 'syncFile' || op === 'syncDirectory')).lastIndexOf(true);
    const segmentSave = calls.findIndex(([op, path]) => op === 'writeFileSynced' && /\.seg\d+\.sqlite/.test(path));
    assert.ok(segmentSave > lastBlobSync, 'the segment that lists the results is saved after they reached the disk');
    calls.length = 0;
    await store.flush();
    assert.equal(calls.filter(([, path]) => path.includes('blobs')).length, 0, 'a save with no new result syncs nothing');
  });

  it('a store without sync (the replay CLI) never waits for the disk', async () => {
    const { fs, calls } = countingFs();
    const store = await openStore(folder, { fs, debounceMs: 1e9, sync: false });
    const session = await store.createSession({ title: 'replay' });
    const info = await store.putBlob(session.id, { toolName: 'dump', content: randomBytes(BLOB_PART_BYTES + 5) });
    await store.putMessages(session.id, [{ id: 'm1', role: 'user', kind: 'user', content: 'hi', agentVisible: true, userVisible: true, createdAt: 1 }]);
    await store.close();
    assert.deepEqual(calls.filter(([op]) => op === 'syncFile' || op === 'syncDirectory' || op === 'writeFileSynced'), []);
    const reopened = await openStore(folder);
    assert.equal((await reopened.readBlob(session.id, info.id, BLOB_PART_BYTES, 10)).bytes.length, 5);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['m1']);
  });

  it('a write that fails part-way leaves no half-stored result: temp removed, failure reported, the error thrown', async () => {
    let writes = 0;
    const failing: WriteFs = {
      ...nodeWriteFs,
      async writeFile(path, data, append) {
        if (path.includes('blobs') && ++writes === 2) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return nodeWriteFs.writeFile(path, data, append);
      },
    };
    const store = await openStore(folder, { fs: failing });
    await assert.rejects(store.putBlob('s1', { toolName: 'dump', content: randomBytes(3 * BLOB_PART_BYTES) }), /ENOSPC/);
    assert.deepEqual(readdirSync(join(folder, 'blobs')), [], 'no content, ref or temp file left behind');
    assert.equal(store.problems.length, 1);
    assert.equal(store.problems[0].kind, 'write-failed');
  });

  it('temp files of a writer killed mid-write are removed after a minute, never before', async () => {
    const store = await openStore(folder);
    const complete = await store.putBlob('s1', { toolName: 'dump', content: randomBytes(BLOB_PART_BYTES + 10) });
    await store.close();
    const orphan = join(folder, 'blobs', `${'a'.repeat(64)}.blob.tmp-wdead-0`);
    writeFileSync(orphan, 'half a result');
    let now = Date.now();
    await (await openStore(folder, { now: () => now })).close();
    assert.ok(existsSync(orphan), 'a temp file younger than a minute may belong to a write in progress in another window');
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(orphan, old, old);
    now = Date.now();
    const later = await openStore(folder, { now: () => now });
    assert.ok(!existsSync(orphan), 'the leftover is removed');
    assert.equal((await later.readBlob('s1', complete.id, BLOB_PART_BYTES, 10)).bytes.length, 10, 'complete results are kept');
  });

  it('a read-only store keeps results in memory for this window and reads them back', async () => {
    const denied = async () => {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    };
    const store = await openStore(folder, { probeWrite: denied });
    assert.equal(store.mode, 'read-only');
    const info = await store.putBlob('s1', { toolName: 'dump', content: Buffer.from('kept in memory') });
    assert.equal(Buffer.from((await store.readBlob('s1', info.id, 5, 2)).bytes).toString(), 'in');
    assert.deepEqual(readdirSync(join(folder, 'blobs')), []);
  });

  it('reads results stored whole by schema-1 files (before parts existed)', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database();
    db.run(MIGRATIONS[0].sql);
    db.run('PRAGMA user_version = 1');
    const content = Buffer.from('legacy output\n'.repeat(1000));
    db.run('INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', ['rlegacy123', 's1', 'run_command', null, content, content.length, 1000, sha256(content), 1]);
    const store = await openStore(folder);
    writeFileSync(join(folder, 'blobs', 'rlegacy123.sqlite'), db.export());
    db.close();
    const slice = await store.readBlob('s1', 'rlegacy123', 14, 14);
    assert.equal(Buffer.from(slice.bytes).toString(), 'legacy output\n');
    assert.equal((await store.getBlobInfo('s1', 'rlegacy123'))?.lineCount, 1000);
    assert.deepEqual(store.problems, []);
  });

  it('reads large results stored by the previous version as a database per part', async () => {
    const SQL = await sqlRuntime();
    const partBytes = 1000;
    const content = randomBytes(2 * partBytes + 300);
    mkdirSync(join(folder, 'blobs'), { recursive: true });
    for (let part = 0; part < 3; part++) {
      const db = newDatabase(SQL);
      db.run('INSERT INTO tool_result_blob_parts (blob_id, part, content) VALUES (?, ?, ?)', ['roldparts1', part, content.subarray(part * partBytes, (part + 1) * partBytes)]);
      writeFileSync(join(folder, 'blobs', `roldparts1.p${part}.sqlite`), db.export());
      db.close();
    }
    const main = newDatabase(SQL);
    main.run('INSERT INTO tool_result_blobs (id, session_id, tool_name, tool_call_id, content, byte_size, line_count, sha256, created_at, part_count, part_bytes) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, 3, ?)', [
      'roldparts1', 's1', 'dump', null, content.length, 1, sha256(content), 1, partBytes,
    ]);
    writeFileSync(join(folder, 'blobs', 'roldparts1.sqlite'), main.export());
    main.close();
    const store = await openStore(folder);
    assert.equal((await store.getBlobInfo('s1', 'roldparts1'))?.byteSize, content.length);
    assert.ok(Buffer.from((await store.readBlob('s1', 'roldparts1', 990, 1100)).bytes).equals(content.subarray(990, 2090)));
    assert.ok(Buffer.from((await store.readBlob('s1', 'roldparts1', 0, content.length)).bytes).equals(content));
    assert.deepEqual(store.problems, []);
  });
});
