import { strict as assert } from 'assert';
import { createHash, randomBytes } from 'crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { nodeWriteFs, type WriteFs } from '../../../src/node/store/atomicFile';
import { openStore } from '../../../src/node/store';
import { BLOB_PART_BYTES } from '../../../src/node/store/sqlJsStore';
import { MIGRATIONS } from '../../../src/node/store/schema';
import { sqlRuntime } from '../../../src/node/store/sqlRuntime';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('large offloaded results stored in parts', function () {
  this.timeout(60_000);
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'tally-parts-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('splits a result larger than one part into part files and reads any range back exactly', async () => {
    const store = await openStore(folder);
    const content = randomBytes(2 * BLOB_PART_BYTES + 1_000);
    const info = await store.putBlob('s1', { toolName: 'dump', content });
    const files = readdirSync(join(folder, 'blobs')).filter((n) => n.startsWith(info.id)).sort();
    assert.deepEqual(files, [`${info.id}.p0.sqlite`, `${info.id}.p1.sqlite`, `${info.id}.p2.sqlite`, `${info.id}.sqlite`]);
    const ranges: Array<[number, number]> = [[0, 10], [BLOB_PART_BYTES - 5, 10], [BLOB_PART_BYTES - 1, BLOB_PART_BYTES + 2], [content.length - 3, 100], [content.length, 10], [0, content.length]];
    for (const [offset, limit] of ranges) {
      const slice = await store.readBlob(info.id, offset, limit);
      assert.ok(Buffer.from(slice.bytes).equals(content.subarray(offset, offset + limit)), `range ${offset}+${limit}`);
      assert.equal(slice.totalBytes, content.length);
    }
    assert.equal(info.sha256, sha256(content));
    await store.close();
  });

  it('keeps a result of at most one part in a single file', async () => {
    const store = await openStore(folder);
    const info = await store.putBlob('s1', { toolName: 'dump', content: Buffer.alloc(BLOB_PART_BYTES, 97) });
    assert.deepEqual(readdirSync(join(folder, 'blobs')).filter((n) => n.startsWith(info.id)), [`${info.id}.sqlite`]);
    await store.close();
  });

  it('a write that fails part-way leaves no half-stored result: parts removed, failure reported, the error thrown', async () => {
    let writes = 0;
    const failing: WriteFs = {
      ...nodeWriteFs,
      async writeFileSynced(path, data) {
        if (path.includes('blobs') && ++writes === 3) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return nodeWriteFs.writeFileSynced(path, data);
      },
    };
    const store = await openStore(folder, { fs: failing });
    await assert.rejects(store.putBlob('s1', { toolName: 'dump', content: randomBytes(3 * BLOB_PART_BYTES) }), /ENOSPC/);
    assert.deepEqual(readdirSync(join(folder, 'blobs')), [], 'no part or temp file left behind');
    assert.equal(store.problems.length, 1);
    assert.equal(store.problems[0].kind, 'write-failed');
    await store.close();
  });

  it('parts of a result whose writer was killed before its main file are removed after a minute, never before', async () => {
    const store = await openStore(folder);
    const complete = await store.putBlob('s1', { toolName: 'dump', content: randomBytes(BLOB_PART_BYTES + 10) });
    await store.close();
    // A killed writer: parts on disk, no main file.
    const orphan = join(folder, 'blobs', 'rorphan1234.p0.sqlite');
    writeFileSync(orphan, 'part');
    let now = Date.now();
    const fresh = await openStore(folder, { now: () => now });
    assert.ok(existsSync(orphan), 'a part younger than a minute may belong to a write in progress in another window');
    await fresh.close();
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(orphan, old, old);
    now = Date.now();
    const later = await openStore(folder, { now: () => now });
    assert.ok(!existsSync(orphan), 'the orphaned part is removed');
    assert.equal((await later.readBlob(complete.id, BLOB_PART_BYTES, 10)).bytes.length, 10, 'complete results keep their parts');
    await later.close();
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
    const slice = await store.readBlob('rlegacy123', 14, 14);
    assert.equal(Buffer.from(slice.bytes).toString(), 'legacy output\n');
    assert.equal((await store.getBlobInfo('rlegacy123'))?.lineCount, 1000);
    assert.deepEqual(store.problems, []);
    await store.close();
  });
});
