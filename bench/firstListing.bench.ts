/**
 * The first listing of sessions in a new window: a folder of N sessions left by a closed window
 * (its session index in `index/`), opened in a fresh process that lists the sessions and lets the
 * background merge of closed windows' index files finish. Reports the listing's wall time, the
 * longest event-loop block from the listing's start to the merge's end (1 ms timer probe; the
 * store's opening, which compiles sql.js, is before it), how often a closed
 * window's index file was read, and the bytes of index files this window wrote.
 * `--root DIR` runs the store of another checkout (the code before a change, built in a temp clone).
 * Run: node -r ./test/register.cjs bench/firstListing.bench.ts [sessions] [--root DIR]
 */
import { execFileSync } from 'child_process';
import { cpSync, mkdirSync, mkdtempSync, promises as fsp, readdirSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import type { SessionStore } from '../src/core/ports/sessionStore';
import { nodeWriteFs, type WriteFs } from '../src/node/store/files/atomicFile';
import { openStore } from '../src/node/store';
import { measureBlocking } from '../test/support/eventLoopBlocks';

const quickFs: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => writeFileSync(path, data), syncDirectory: async () => undefined };

async function buildSessions(folder: string, count: number): Promise<void> {
  const store = await openStore(folder, { debounceMs: 1e9, fs: quickFs });
  for (let i = 0; i < count; i++) {
    const session = await store.createSession({ title: `session ${i}`, createdAt: i });
    await store.putMessages(session.id, [{ id: `m${i}`, role: 'user', kind: 'user', content: `question ${i}`, agentVisible: true, userVisible: true, createdAt: i * 10 }]);
    if (i % 200 === 199) await store.flush();
  }
  await store.close();
}

function indexBytes(folder: string, writer?: string): number {
  const dir = join(folder, 'index');
  return readdirSync(dir).filter((n) => !writer || n.startsWith(writer)).reduce((n, name) => n + statSync(join(dir, name)).size, 0);
}

/** Child: opens the store of `root`, lists, waits for the merge, reports. */
async function firstListing(folder: string, root: string): Promise<void> {
  const open = (require(join(root, 'src', 'node', 'store')) as { openStore: (f: string) => Promise<SessionStore & { writer: string; close(): Promise<void> }> }).openStore;
  const closedReads: string[] = [];
  const original = fsp.readFile;
  (fsp as { readFile: unknown }).readFile = (path: unknown, ...rest: unknown[]) => {
    if (/[\\/]index[\\/].*\.sqlite$/.test(String(path))) closedReads.push(String(path)); // index files, not the checks' cache (index/checked.json)
    return (original as (...a: unknown[]) => unknown)(path, ...rest);
  };
  let listMs = 0;
  const store = await open(folder);
  const writer = store.writer;
  const measured = await measureBlocking(async () => {
    const started = performance.now();
    const listed = (await store.listSessions()).length;
    listMs = performance.now() - started;
    await store.close(); // waits for the merge of closed windows' index files
    return listed;
  });
  process.stdout.write(JSON.stringify({ listed: measured.result, listMs: Math.round(listMs), longestBlockMs: Math.round(measured.longestBlockMs), indexFileReads: closedReads.length, indexBytesWritten: indexBytes(folder, writer) }) + '\n');
}

function inChild(folder: string, root: string): Record<string, number> {
  const out = execFileSync(process.execPath, ['-r', join(root, 'test', 'register.cjs'), __filename, '--child', folder, root], { encoding: 'utf8', cwd: root, maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function main() {
  if (process.argv[2] === '--child') return firstListing(process.argv[3], process.argv[4]);
  const count = Number(process.argv[2]) || 10_000;
  const rootAt = process.argv.indexOf('--root');
  const roots = [resolve(__dirname, '..'), ...(rootAt > 0 ? [resolve(process.argv[rootAt + 1])] : [])];
  const built = mkdtempSync(join(tmpdir(), 'tally-listing-'));
  const rows: Array<Record<string, unknown>> = [];
  try {
    await buildSessions(built, count);
    for (let round = 0; round < 2; round++) {
      for (const root of roots) {
        const copy = mkdtempSync(join(tmpdir(), 'tally-listing-copy-'));
        cpSync(built, copy, { recursive: true });
        rows.push({ code: root === roots[0] ? 'this' : root, sessions: count, ...inChild(copy, root) });
        console.log(JSON.stringify(rows[rows.length - 1]));
        rmSync(copy, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(built, { recursive: true, force: true });
  }
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'firstListing.json'), JSON.stringify({ date: new Date().toISOString(), rows, targets: { listMs: 200, longestBlockMs: 50 } }, null, 2) + '\n');
  console.table(rows);
}

void main();
