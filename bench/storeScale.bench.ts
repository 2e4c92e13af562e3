/**
 * Listing and opening sessions with 100 / 1,000 / 10,000 sessions on disk: the store's session
 * index against the previous store (built in the same run from `git show main:` of the
 * persistence files into bench/tmp/, which lists by opening every session's info file). Each
 * measurement runs in a fresh process on its own copy of the data, so time and memory growth
 * (RSS, heap) are its own. Writes bench/results/storeScale.json and prints a table.
 * Run: node -r ./test/register.cjs bench/storeScale.bench.ts [counts…]
 */
import { execFileSync, fork } from 'child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { cpus, tmpdir, totalmem } from 'os';
import { dirname, join, posix, resolve } from 'path';
import { nodeWriteFs, type WriteFs } from '../src/node/store/files/atomicFile';
import type { SessionStore } from '../src/core/ports/sessionStore';
import { openStore } from '../src/node/store';

const ROOT = resolve(__dirname, '..');
const OLD_DIR = join(ROOT, 'bench', 'tmp', 'old-store');
const MB = 1024 * 1024;

/** Saves without fsync while building the data: the bench measures reads. */
const quickFs: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => writeFileSync(path, data), syncDirectory: async () => undefined };

/** The previous store's files from `main` (its folders kept), with imports leaving the store pointing back into this tree. */
function buildOldStore(): string {
  rmSync(OLD_DIR, { recursive: true, force: true });
  const STORE = 'src/node/store/';
  const files = execFileSync('git', ['ls-tree', '-r', '--name-only', 'main', STORE], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const source = execFileSync('git', ['show', `main:${file}`], { cwd: ROOT, encoding: 'utf8' });
    const rewired = source.replace(/(from |import )'(\.{1,2}\/[^']+)'/g, (whole, keyword: string, spec: string) => {
      const target = posix.join(posix.dirname(file), spec);
      return target.startsWith(STORE) ? whole : `${keyword}'${join(ROOT, target)}'`;
    });
    const copy = join(OLD_DIR, file.slice(STORE.length));
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, rewired);
  }
  return join(OLD_DIR, 'index.ts');
}

async function buildSessions(folder: string, count: number): Promise<void> {
  const store = await openStore(folder, { debounceMs: 1e9, fs: quickFs });
  for (let i = 0; i < count; i++) {
    const session = await store.createSession({ title: `session ${i}`, createdAt: i });
    const at = i * 10;
    await store.putMessages(session.id, [
      { id: `m${i}a`, role: 'user', kind: 'user', content: `question ${i}`, agentVisible: true, userVisible: true, createdAt: at },
      { id: `m${i}b`, role: 'assistant', kind: 'assistant', content: `answer ${i}`, agentVisible: true, userVisible: true, createdAt: at + 1 },
    ]);
    if (i % 50 === 49) await store.flush();
  }
  await store.close();
}

interface Measured {
  openMs: number;
  listMs: number;
  relistMs: number;
  listed: number;
  openSessionMs: number;
  rssGrowthMiB: number;
  heapGrowthMiB: number;
  setAside: number;
  problems: string[];
  error?: string;
}

/** Runs in the child: opens the store, lists twice, opens one session; reports what it saw. */
async function measure(impl: string, folder: string): Promise<Measured> {
  const open = (impl === 'old' ? (require(join(OLD_DIR, 'index.ts')) as { openStore: typeof openStore }).openStore : openStore) as (f: string) => Promise<SessionStore>;
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const store = await open(folder);
  const t1 = performance.now();
  let listed = 0;
  let error: string | undefined;
  let t2 = t1;
  let t3 = t1;
  let t4 = t1;
  try {
    const sessions = await store.listSessions();
    listed = sessions.length;
    t2 = performance.now();
    await store.listSessions();
    t3 = performance.now();
    const middle = sessions[Math.floor(sessions.length / 2)];
    if (middle) {
      await store.getSession(middle.id);
      await store.loadTranscript(middle.id);
    }
    t4 = performance.now();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  global.gc?.();
  const usage = process.memoryUsage();
  const result: Measured = {
    openMs: t1 - t0,
    listMs: t2 - t1,
    relistMs: t3 - t2,
    listed,
    openSessionMs: t4 - t3,
    rssGrowthMiB: (usage.rss - rss0) / MB,
    heapGrowthMiB: (usage.heapUsed - heap0) / MB,
    setAside: store.problems.filter((p) => p.kind === 'corrupt').length,
    problems: [...new Set(store.problems.map((p) => `${p.kind}: ${p.message}`))].slice(0, 3),
    error,
  };
  await store.close().catch(() => undefined);
  return result;
}

function runChild(impl: string, folder: string): Promise<Measured> {
  return new Promise((done, fail) => {
    const child = fork(__filename, ['child', impl, folder], { execArgv: ['-r', join(ROOT, 'test', 'register.cjs'), '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (m) => done(m as Measured));
    child.on('exit', (code) => (code ? fail(new Error(`${impl} exited with ${code}`)) : undefined));
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === 'child') {
    const result = await measure(process.argv[3], process.argv[4]);
    process.send!(result, () => process.exit(0));
    return;
  }
  const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
  buildOldStore();
  const rows: Array<{ sessions: number; impl: string } & Measured> = [];
  for (const count of counts.length ? counts : [100, 1_000, 10_000]) {
    const base = mkdtempSync(join(tmpdir(), 'tally-scale-bench-'));
    try {
      const data = join(base, 'data');
      const t = performance.now();
      await buildSessions(data, count);
      console.error(`built ${count} sessions in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      for (const impl of ['index', 'index-rebuild', 'old']) {
        const copy = join(base, impl);
        cpSync(data, copy, { recursive: true });
        if (impl === 'index-rebuild') rmSync(join(copy, 'index'), { recursive: true, force: true }); // as after an upgrade
        const result = await runChild(impl === 'old' ? 'old' : 'new', copy);
        rows.push({ sessions: count, impl, ...result });
        console.error(`${count} ${impl}: list ${result.listMs.toFixed(1)} ms, ${result.listed} listed${result.error ? `, ${result.error}` : ''}`);
        rmSync(copy, { recursive: true, force: true });
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, memGiB: Math.round(totalmem() / 1024 ** 3), node: process.version };
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'storeScale.json'), JSON.stringify({ machine, date: new Date().toISOString(), rows }, null, 2) + '\n');
  const f = (n: number) => n.toFixed(1).padStart(9);
  console.log('sessions  impl            open ms   list ms  relist ms  open-session ms  RSS +MiB  heap +MiB  listed  set aside');
  for (const r of rows) {
    console.log(`${String(r.sessions).padStart(8)}  ${r.impl.padEnd(14)}${f(r.openMs)} ${f(r.listMs)} ${f(r.relistMs)} ${f(r.openSessionMs).padStart(16)} ${f(r.rssGrowthMiB)} ${f(r.heapGrowthMiB)}  ${String(r.listed).padStart(6)}  ${String(r.setAside).padStart(9)}${r.error ? `  error: ${r.error}` : ''}`);
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
