import { strict as assert } from 'assert';
import { fork } from 'child_process';
import { createHash, randomBytes } from 'crypto';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'fs';
import { basename, join } from 'path';
import { nodeWriteFs, type WriteFs } from '../../../../src/node/store/files/atomicFile';
import type { SqlJsStore } from '../../../../src/node/store';
import type { StoreProblem } from '../../../../src/core/ports/sessionStore';
import { storeFolderPerTest } from './fixtures/storeFolder';
import { BLOB_PART_BYTES } from '../../../../src/node/store/blobs/blobFiles';
import { MAX_PROBLEMS } from '../../../../src/node/store/files/storeProblems';
import { sqlRuntime } from '../../../../src/node/store/sql/sqlRuntime';
import type { Message } from '../../../../src/core/model/message';
import { BLOB_BYTES, type Ack } from './fixtures/appender';

const REGISTER = join(__dirname, '..', '..', '..', 'register.cjs');
const APPENDER = join(__dirname, 'fixtures', 'appender.ts');

function message(id: string, createdAt: number, content = `message ${id}`): Message {
  return { id, role: 'user', kind: 'user', content, agentVisible: true, userVisible: true, createdAt };
}

function runAppender(folder: string, sessionId: string, prefix: string, count: number, mode = 'normal') {
  return fork(APPENDER, [folder, sessionId, prefix, String(count), mode], { execArgv: ['-r', REGISTER], stdio: 'pipe' });
}

function exited(child: ReturnType<typeof fork>): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const fileHash = (path: string) => sha256(readFileSync(path));
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** Ways a file gets damaged: a torn write, a zeroed or garbage file, one bad page inside. */
const DAMAGES = [
  ['truncated mid-write', (b: Buffer) => b.subarray(0, Math.floor(b.length / 3))],
  ['zeroed', (b: Buffer) => Buffer.alloc(b.length)],
  ['random bytes', (b: Buffer) => randomBytes(b.length)],
  ['one page overwritten', (b: Buffer) => {
    const copy = Buffer.from(b);
    randomBytes(4096).copy(copy, Math.floor(copy.length / 2 / 4096) * 4096);
    return copy;
  }],
] as const;

function damageFile(path: string, damage: (b: Buffer) => Buffer): void {
  writeFileSync(path, damage(readFileSync(path)));
}

/** The data files under `dir` (an open store's heartbeat, `writers/<writer>.alive`, is not data). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'writers') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('sql.js store', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-store-');
  const openStore = stores.openStore;
  let folder: string;
  beforeEach(() => (folder = stores.folder()));

  it('round-trips every kind of record through close and reopen', async () => {
    let store = await openStore(folder, { debounceMs: 5 });
    const session = await store.createSession({ title: 'first', origin: 'chat' });
    await store.putMessages(session.id, [message('m1', 1), message('m2', 2)]);
    await store.putMessages(session.id, [{ ...message('m1', 1), pinned: true }]);
    const blob = await store.putBlob(session.id, { toolName: 'run_command', content: Buffer.from('line1\nline2\n') });
    await store.saveSnapshot({ sessionId: session.id, messages: [message('m2', 2)], tokenCount: 42, compactionId: 'c1', createdAt: 2 });
    await store.addCompactionEvent({ id: 'c1', sessionId: session.id, trigger: 'manual', status: 'complete', strategies: ['tool-result-masking'], tokensBefore: 100, tokensAfter: 40, messagesBefore: 2, messagesAfter: 1, startedAt: 5, durationMs: 3, removed: [] });
    await store.addRequestUsage({ id: 'u1', sessionId: session.id, requestIndex: 0, createdAt: 6, model: 'm', contextWindow: 1000, maxOutputTokens: 100, components: { system: 1, skills: 0, tools: 2, messages: 3, toolResults: 4, summaries: 0 }, estimatedInputTokens: 10, reportedInputTokens: 12, items: [] });
    await store.updateSession(session.id, { title: 'renamed' });
    await store.close();
    assert.deepEqual(filesUnder(folder).filter((f) => f.includes('.tmp-')), [], 'no temp files left');

    store = await openStore(folder);
    assert.equal((await store.getSession(session.id))?.title, 'renamed');
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => [m.id, Boolean(m.pinned)]), [['m1', true], ['m2', false]]);
    assert.equal((await store.getBlobInfo(session.id, blob.id))?.lineCount, 2);
    assert.equal((await store.listBlobs(session.id)).length, 1);
    assert.equal((await store.loadSnapshot(session.id))?.tokenCount, 42);
    assert.equal((await store.listCompactionEvents(session.id))[0].tokensAfter, 40);
    assert.equal((await store.listRequestUsage(session.id))[0].reportedInputTokens, 12);
    await store.deleteSession(session.id);
    assert.equal((await store.listSessions()).length, 0);
    await store.close();
  });

  it('debounces writes and flushes on demand', async () => {
    const store = await openStore(folder, { debounceMs: 60_000 });
    const session = await store.createSession({ title: 'd' });
    await store.putMessages(session.id, [message('a', 1)]);
    assert.equal(filesUnder(folder).length, 0, 'nothing written before the debounce');
    await store.flush();
    assert.ok(filesUnder(folder).length > 0);
    await store.close();
  });

  it('persisting one more turn rewrites only small files, whatever is stored', async () => {
    let written = 0;
    const counting: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => { written += data.length; return nodeWriteFs.writeFileSynced(path, data); } };
    const store = await openStore(folder, { debounceMs: 1e9, fs: counting });
    const session = await store.createSession({ title: 'big' });
    const chunk = 'y'.repeat(4000);
    for (let i = 0; i < 6000; i++) {
      await store.putMessages(session.id, [message(`big${i}`, i, chunk)]);
      if (i % 100 === 99) await store.flush();
    }
    await store.flush();
    const total = filesUnder(folder).reduce((n, f) => n + readFileSync(f).length, 0);
    assert.ok(total > 20 * 1024 * 1024, `${total} bytes stored`);
    written = 0;
    await store.putMessages(session.id, [message('one-more', 1e9, 'the next turn')]);
    await store.flush();
    assert.ok(written < 3 * 1024 * 1024, `one turn wrote ${written} bytes`);
    await store.close();
  });

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

  it('never overwrites or moves a file from a newer schema version', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database();
    db.run('CREATE TABLE messages (id TEXT, session_id TEXT, created_at INTEGER, written_at INTEGER, body TEXT); PRAGMA user_version = 99;');
    const dir = join(folder, 'sessions', 'snewer');
    require('fs').mkdirSync(dir, { recursive: true });
    const path = join(dir, 'wfuture.seg0.sqlite');
    const bytes = Buffer.from(db.export());
    writeFileSync(path, bytes);
    const hash = fileHash(path);
    const first = await openStore(folder);
    assert.deepEqual(await first.loadTranscript('snewer'), []);
    assert.equal(first.problems[0].kind, 'newer-schema');
    await first.putMessages('snewer', [message('n1', 1)]);
    await first.close();
    assert.ok(readFileSync(path).equals(bytes), 'the newer file is untouched');

    const second = await openStore(folder);
    assert.deepEqual((await second.loadTranscript('snewer')).map((m) => m.id), ['n1'], 'what was written beside it still reads');
    assert.deepEqual(second.problems.map((p) => [p.kind, p.file]), [['newer-schema', path]]);
    await second.putMessages('snewer', [message('n2', 2)]);
    await second.close();
    assert.equal(fileHash(path), hash, 'the newer file is byte-for-byte unchanged');
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.sqlite')).sort(), [`${first.writer}.seg0.sqlite`, `${second.writer}.seg0.sqlite`, 'wfuture.seg0.sqlite'].sort(), 'new writes went to new files');

    const third = await openStore(folder);
    assert.deepEqual((await third.loadTranscript('snewer')).map((m) => m.id), ['n1', 'n2']);
    await third.close();
    assert.equal(fileHash(path), hash);
  });

  it('migrates an older file when reading it', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database(); // version 0: no tables at all
    const dir = join(folder, 'sessions', 'sold');
    require('fs').mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'wold.seg0.sqlite'), Buffer.from(db.export()));
    const store = await openStore(folder);
    assert.deepEqual(await store.loadTranscript('sold'), []);
    assert.equal(store.problems.length, 0);
    await store.close();
  });

  it('survives a full disk: reports, keeps the session in memory, saves once space returns', async () => {
    let full = true;
    const flaky: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => { if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }); return nodeWriteFs.writeFileSynced(path, data); } };
    const store = await openStore(folder, { debounceMs: 1e9, fs: flaky });
    const session = await store.createSession({ title: 'disk' });
    await store.putMessages(session.id, [message('d1', 1)]);
    await assert.rejects(store.flush(), /ENOSPC/);
    assert.equal(store.problems.some((p) => p.kind === 'write-failed'), true);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ['d1'], 'still in memory');
    full = false;
    await store.flush();
    await store.close();
    const reopened = await openStore(folder);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['d1']);
    await reopened.close();
  });

  it('a full disk is reported once per streak of failed saves, loses nothing, and a new streak is reported again', async () => {
    let full = true;
    let failures = 0;
    const flaky: WriteFs = {
      ...nodeWriteFs,
      writeFileSynced: async (path, data) => { if (full) { failures++; throw enospc(); } return nodeWriteFs.writeFileSynced(path, data); },
      writeFile: async (path, data, append) => { if (full) { failures++; throw enospc(); } return nodeWriteFs.writeFile(path, data, append); },
    };
    const store = await openStore(folder, { debounceMs: 1e9, fs: flaky });
    const notified: StoreProblem[] = [];
    store.onProblem((p) => notified.push(p));
    const session = await store.createSession({ title: 'disk' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(`d${i}`);
      await store.putMessages(session.id, [message(`d${i}`, i)]);
      await assert.rejects(store.flush(), /ENOSPC/);
    }
    await assert.rejects(store.putBlob(session.id, { toolName: 'dump', content: Buffer.from('out') }), /ENOSPC/);
    assert.ok(failures >= 13, `${failures} writes failed`);
    assert.deepEqual(notified.map((p) => p.kind), ['write-failed'], 'one notification for the whole streak');
    assert.deepEqual(store.problems.map((p) => p.kind), ['write-failed']);
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => m.id), ids, 'everything still in memory');
    assert.equal((await store.getSession(session.id))?.title, 'disk');
    assert.deepEqual(filesUnder(folder), [], 'nothing half-written');

    full = false;
    await store.flush();
    let reopened = await openStore(folder);
    assert.deepEqual((await reopened.listSessions()).map((s) => s.title), ['disk']);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ids, 'saved once space returned');
    await reopened.close();

    full = true;
    await store.putMessages(session.id, [message('d6', 6)]);
    await assert.rejects(store.flush(), /ENOSPC/);
    await assert.rejects(store.flush(), /ENOSPC/);
    assert.deepEqual(notified.map((p) => p.kind), ['write-failed', 'write-failed'], 'a failure after a successful save is reported again');
    full = false;
    await store.close();
    reopened = await openStore(folder);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), [...ids, 'd6']);
    await reopened.close();
  });

  it('timer saves on a full disk retry about every second but notify once, and save by themselves once space returns', async () => {
    let full = true;
    let failures = 0;
    const flaky: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => { if (full) { failures++; throw enospc(); } return nodeWriteFs.writeFileSynced(path, data); } };
    const store = await openStore(folder, { debounceMs: 5, fs: flaky });
    const notified: StoreProblem[] = [];
    store.onProblem((p) => notified.push(p));
    const session = await store.createSession({ title: 'timer' });
    await store.putMessages(session.id, [message('t1', 1)]);
    await delay(2_600);
    assert.ok(failures >= 6, `retried: ${failures} failed writes (info + segment, about once a second)`);
    assert.deepEqual(notified.map((p) => p.kind), ['write-failed']);
    full = false;
    await delay(1_300);
    const reopened = await openStore(folder);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['t1'], 'a retry saved it without an explicit flush');
    await reopened.close();
    assert.equal(notified.length, 1);
    await store.close();
  });

  it(`keeps only the last ${MAX_PROBLEMS} problems`, async () => {
    let n = 0;
    const failing: WriteFs = { ...nodeWriteFs, writeFileSynced: async () => { throw new Error(`EIO: i/o error #${++n}`); } };
    const store = await openStore(folder, { debounceMs: 1e9, fs: failing });
    const session = await store.createSession({ title: 'many' });
    await store.putMessages(session.id, [message('x', 1)]);
    for (let i = 0; i < 150; i++) await assert.rejects(store.flush(), /EIO/);
    assert.equal(n, 300);
    assert.equal(store.problems.length, MAX_PROBLEMS);
    assert.equal(store.problems.at(-1)?.message, 'EIO: i/o error #300', 'the newest are kept');
    assert.equal(store.problems[0].message, 'EIO: i/o error #101');
    await assert.rejects(store.close());
  });

  it('a flush waiting on a save in progress that fails still writes its own changes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const stalling: WriteFs = {
      ...nodeWriteFs,
      writeFileSynced: async (path, data) => {
        if (++calls === 1) {
          await gate; // the first write (the session row) stalls, then fails
          throw enospc();
        }
        return nodeWriteFs.writeFileSynced(path, data);
      },
    };
    const store = await openStore(folder, { debounceMs: 1e9, fs: stalling });
    const session = await store.createSession({ title: 'in flight' });
    await store.putMessages(session.id, [message('f1', 1)]);
    const first = store.flush();
    while (calls === 0) await delay(1);
    await store.putMessages(session.id, [message('f2', 2)]);
    const second = store.flush();
    release();
    await assert.rejects(first, /ENOSPC/);
    await second; // saves the session row the first one failed to write
    const reopened = await openStore(folder);
    assert.deepEqual(await reopened.getSession(session.id), session);
    assert.deepEqual((await reopened.loadTranscript(session.id)).map((m) => m.id), ['f1', 'f2']);
    assert.deepEqual(reopened.problems, []);
    await reopened.close();
    await store.close();
  });

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
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 40)));
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
      await delay(Math.floor(Math.random() * 400));
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
