/**
 * Searching past sessions at scale, on the real store path: a folder of N sessions (default 10,000)
 * written through the sql.js store by a window that then closed, each with four messages of real
 * text from the recorded agent runs in /work/shared/trajectories (or TALLY_TRAJECTORIES), searched
 * from a new window. Reports the first search (which reads the session list and every search file
 * from disk), the median of later ones per query, and the first search of the window after, each
 * with the longest time the event loop went without a turn while it ran (blockProbe.ts), the hits
 * and the search files' sizes.
 * Run: node -r ./test/register.cjs bench/sessionSearch.bench.ts [sessions]
 * TALLY_BENCH_OLD=<a worktree of the previous code>: measures it too on the same folder, old and
 * new alternating (ROUNDS each). TALLY_BENCH_SEEDED=<folder>: seed once into that folder (kept),
 * and copy it for each later run.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';
import { nodeWriteFs, type WriteFs } from '../src/node/store/files/atomicFile';
import { openStore } from '../src/node/store';
import type { Message } from '../src/core/model/message';
import { median } from './median';
import { sqlRuntime } from '../src/node/store/sql/sqlRuntime';
import { warmUp } from '../src/node/store/sql/sqlWarmUp';
import { withBlockProbe } from './blockProbe';

const quickFs: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => writeFileSync(path, data), syncDirectory: async () => undefined };
const TRAJECTORIES = process.env.TALLY_TRAJECTORIES ?? '/work/shared/trajectories';
const ROUNDS = Number(process.env.TALLY_BENCH_ROUNDS) || 2;
const QUERIES = ['prefetch', 'migration', 'UUIDField primary key', 'separability matrix', 'traceback', 'astropy', 'zzqx no such word', 'Ünïcode'];

/** Every text message of the recorded runs, with the run it came from. */
function realTexts(): Array<{ run: string; role: 'user' | 'assistant'; text: string }> {
  const out: Array<{ run: string; role: 'user' | 'assistant'; text: string }> = [];
  for (const dir of readdirSync(TRAJECTORIES)) {
    const path = join(TRAJECTORIES, dir);
    if (!statSync(path).isDirectory()) continue;
    for (const name of readdirSync(path)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(join(path, name), 'utf8'));
      } catch {
        continue;
      }
      const messages = (parsed as { messages?: Array<{ role?: string; content?: unknown }> }).messages ?? [];
      for (const m of messages) if ((m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && m.content.trim()) out.push({ run: name.replace(/\..*$/, ''), role: m.role, text: m.content });
    }
  }
  return out;
}

async function seed(folder: string, count: number): Promise<void> {
  const texts = realTexts();
  if (texts.length < 100) throw new Error(`too few recorded messages in ${TRAJECTORIES}`);
  const store = await openStore(folder, { debounceMs: 1e9, fs: quickFs });
  for (let i = 0; i < count; i++) {
    const first = texts[(i * 7) % texts.length];
    const info = await store.createSession({ title: `${first.run} · ${i}`, createdAt: i, updatedAt: i });
    const messages: Message[] = [0, 1, 2, 3].map((k) => {
      const t = texts[(i * 7 + k * 131) % texts.length];
      return { id: `m${i}-${k}`, role: t.role, kind: t.role, content: t.text, agentVisible: true, userVisible: true, createdAt: i * 10 + k };
    });
    await store.putMessages(info.id, messages);
    if (i % 500 === 499) await store.flush();
  }
  await store.close();
}

type OpenStore = typeof openStore;

/** One window's first search, seven of each query after it, and the next window's first search. */
async function measure(folder: string, code: string, open: OpenStore): Promise<Array<Record<string, unknown>>> {
  // Every window of this bench starts as the first after the seeding: no file checked yet.
  rmSync(join(folder, 'index', 'checked.json'), { force: true });
  const rows: Array<Record<string, unknown>> = [];
  const store = await open(folder);
  try {
    const cold = await withBlockProbe(async () => {
      const started = performance.now();
      return { hits: (await store.searchSessions(QUERIES[0])).length, ms: performance.now() - started };
    });
    rows.push({ code, query: QUERIES[0], first: true, ms: Math.round(cold.result.ms), blockMs: cold.blockMs, hits: cold.result.hits });
    for (const query of QUERIES) {
      const times: number[] = [];
      let hits = 0;
      let blockMs = 0;
      for (let run = 0; run < 7; run++) {
        const warm = await withBlockProbe(async () => {
          const started = performance.now();
          return { hits: (await store.searchSessions(query)).length, ms: performance.now() - started };
        });
        times.push(warm.result.ms);
        hits = warm.result.hits;
        blockMs = Math.max(blockMs, warm.blockMs);
      }
      rows.push({ code, query, first: false, ms: Math.round(median(times) * 10) / 10, blockMs, hits });
    }
  } finally {
    await store.close();
  }
  const later = await open(folder);
  try {
    const next = await withBlockProbe(async () => {
      const started = performance.now();
      return { hits: (await later.searchSessions(QUERIES[1])).length, ms: performance.now() - started };
    });
    rows.push({ code, query: QUERIES[1], first: 'in the next window', ms: Math.round(next.result.ms), blockMs: next.blockMs, hits: next.result.hits });
  } finally {
    await later.close();
  }
  return rows;
}

async function main(): Promise<void> {
  const count = Number(process.argv[2]) || 10_000;
  const folder = mkdtempSync(join(tmpdir(), 'tally-search-bench-'));
  try {
    const seeded = performance.now();
    const kept = process.env.TALLY_BENCH_SEEDED ? `${process.env.TALLY_BENCH_SEEDED}-${count}` : undefined;
    if (kept && existsSync(join(kept, 'seeded'))) cpSync(kept, folder, { recursive: true });
    else {
      await seed(folder, count);
      if (kept) {
        cpSync(folder, kept, { recursive: true });
        writeFileSync(join(kept, 'seeded'), '');
      }
    }
    const seedMs = Math.round(performance.now() - seeded);
    const index = join(folder, 'index');
    const searchFiles = readdirSync(index).filter((n) => /\.search\d+\.sqlite$/.test(n));
    const searchBytes = searchFiles.reduce((n, name) => n + statSync(join(index, name)).size, 0);
    const old = process.env.TALLY_BENCH_OLD;
    const codes: Array<[string, OpenStore]> = [['new', openStore]];
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    if (old) codes.push(['old', (require(join(old, 'src', 'node', 'store')) as { openStore: OpenStore }).openStore]);
    // As the extension does at activation (in a worker there): sql.js's code compiled before the first search.
    warmUp(await sqlRuntime());
    const rows: Array<Record<string, unknown>> = [];
    const loads: number[][] = [];
    for (let round = 0; round < (old ? ROUNDS : 1); round++) {
      for (const [code, open] of round % 2 ? [...codes].reverse() : codes) {
        loads.push(loadavg().map((l) => Math.round(l * 10) / 10));
        rows.push(...(await measure(folder, code, open)).map((row) => ({ round, ...row })));
      }
    }
    console.table(rows);
    const result = { date: new Date().toISOString(), sessions: count, messagesPerSession: 4, seedMs, searchFiles: searchFiles.length, searchBytes, cores: cpus().length, load: loads, rows, target: { firstMs: 1000, blockMs: 50, warmMs: 200 } };
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'sessionSearch.json'), JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify({ seedMs, searchFiles: searchFiles.length, searchBytes, load: result.load }));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

void main();
