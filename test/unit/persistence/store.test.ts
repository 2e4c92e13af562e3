import { strict as assert } from 'assert';
import { fork } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { nodeWriteFs, type WriteFs } from '../../../src/core/persistence/atomicFile';
import { openStore, type SqlJsStore } from '../../../src/core/persistence';
import { sqlRuntime } from '../../../src/core/persistence/sqlRuntime';
import type { Message } from '../../../src/core/model/message';

const REGISTER = join(__dirname, '..', '..', 'register.cjs');
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

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('sql.js store', function () {
  this.timeout(120_000);
  let folder: string;
  beforeEach(() => (folder = mkdtempSync(join(tmpdir(), 'tally-store-'))));
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('round-trips every kind of record through close and reopen', async () => {
    let store = await openStore(folder, { debounceMs: 5 });
    const session = await store.createSession({ title: 'first', origin: 'chat' });
    await store.putMessages(session.id, [message('m1', 1), message('m2', 2)]);
    await store.putMessages(session.id, [{ ...message('m1', 1), pinned: true }]);
    const blob = await store.putBlob(session.id, { toolName: 'run_command', content: Buffer.from('line1\nline2\n') });
    await store.saveSnapshot({ sessionId: session.id, messages: [message('m2', 2)], tokenCount: 42, compactionId: 'c1', createdAt: 2 });
    await store.addCompactionEvent({ id: 'c1', sessionId: session.id, trigger: 'manual', status: 'complete', strategies: ['tool-result-masking'], tokensBefore: 100, tokensAfter: 40, messagesBefore: 2, messagesAfter: 1, startedAt: 5, durationMs: 3, removed: [] });
    await store.addTurnUsage({ id: 'u1', sessionId: session.id, requestIndex: 0, createdAt: 6, model: 'm', contextWindow: 1000, maxOutputTokens: 100, components: { system: 1, skills: 0, tools: 2, messages: 3, toolResults: 4, summaries: 0 }, estimatedInputTokens: 10, reportedInputTokens: 12, items: [] });
    await store.updateSession(session.id, { title: 'renamed' });
    await store.close();
    assert.deepEqual(filesUnder(folder).filter((f) => f.includes('.tmp-')), [], 'no temp files left');

    store = await openStore(folder);
    assert.equal((await store.getSession(session.id))?.title, 'renamed');
    assert.deepEqual((await store.loadTranscript(session.id)).map((m) => [m.id, Boolean(m.pinned)]), [['m1', true], ['m2', false]]);
    assert.equal((await store.getBlobInfo(blob.id))?.lineCount, 2);
    assert.equal((await store.listBlobs(session.id)).length, 1);
    assert.equal((await store.loadSnapshot(session.id))?.tokenCount, 42);
    assert.equal((await store.listCompactionEvents(session.id))[0].tokensAfter, 40);
    assert.equal((await store.listTurnUsage(session.id))[0].reportedInputTokens, 12);
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

  for (const [name, damage] of [
    ['truncated mid-write', (b: Buffer) => b.subarray(0, Math.floor(b.length / 3))],
    ['zeroed', (b: Buffer) => Buffer.alloc(b.length)],
    ['random bytes', (b: Buffer) => require('crypto').randomBytes(b.length)],
  ] as const) {
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

  it('never overwrites or moves a file from a newer schema version', async () => {
    const SQL = await sqlRuntime();
    const db = new SQL.Database();
    db.run('CREATE TABLE messages (id TEXT, session_id TEXT, created_at INTEGER, written_at INTEGER, body TEXT); PRAGMA user_version = 99;');
    const dir = join(folder, 'sessions', 'snewer');
    require('fs').mkdirSync(dir, { recursive: true });
    const path = join(dir, 'wfuture.seg0.sqlite');
    const bytes = Buffer.from(db.export());
    writeFileSync(path, bytes);
    const store = await openStore(folder);
    assert.deepEqual(await store.loadTranscript('snewer'), []);
    assert.equal(store.problems[0].kind, 'newer-schema');
    await store.putMessages('snewer', [message('n1', 1)]);
    await store.close();
    assert.ok(readFileSync(path).equals(bytes), 'the newer file is untouched');
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
});
