/**
 * Searching past sessions at scale, on the real store path: a folder of N sessions (default 10,000)
 * written through the sql.js store by a window that then closed, each with four messages of real
 * text from the recorded agent runs in /work/shared/trajectories (or TALLY_TRAJECTORIES), searched
 * from a new window. Reports the first search (which reads the session list and every search file
 * from disk and checks each once), the median of later ones per query, and the first search of the
 * window after (the checks remembered), with the hits and the search files' sizes.
 * Run: node -r ./test/register.cjs bench/sessionSearch.bench.ts [sessions]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { cpus, loadavg, tmpdir } from 'os';
import { join } from 'path';
import { nodeWriteFs, type WriteFs } from '../src/node/store/files/atomicFile';
import { openStore } from '../src/node/store';
import type { Message } from '../src/core/model/message';
import { median } from './median';

const quickFs: WriteFs = { ...nodeWriteFs, writeFileSynced: async (path, data) => writeFileSync(path, data), syncDirectory: async () => undefined };
const TRAJECTORIES = process.env.TALLY_TRAJECTORIES ?? '/work/shared/trajectories';
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

async function main(): Promise<void> {
  const count = Number(process.argv[2]) || 10_000;
  const folder = mkdtempSync(join(tmpdir(), 'tally-search-bench-'));
  try {
    const seeded = performance.now();
    await seed(folder, count);
    const seedMs = Math.round(performance.now() - seeded);
    const index = join(folder, 'index');
    const searchFiles = readdirSync(index).filter((n) => /\.search\d+\.sqlite$/.test(n));
    const searchBytes = searchFiles.reduce((n, name) => n + statSync(join(index, name)).size, 0);
    const store = await openStore(folder);
    const rows: Array<Record<string, unknown>> = [];
    try {
      const coldStart = performance.now();
      const coldHits = (await store.searchSessions(QUERIES[0])).length;
      const firstSearchMs = Math.round(performance.now() - coldStart);
      rows.push({ query: QUERIES[0], first: true, ms: firstSearchMs, hits: coldHits });
      for (const query of QUERIES) {
        const times: number[] = [];
        let hits = 0;
        for (let run = 0; run < 7; run++) {
          const started = performance.now();
          hits = (await store.searchSessions(query)).length;
          times.push(performance.now() - started);
        }
        rows.push({ query, first: false, ms: Math.round(median(times) * 10) / 10, hits });
      }
    } finally {
      await store.close();
    }
    // The window after: the files were checked once (index/checked.json), and are read as they are.
    const later = await openStore(folder);
    try {
      const started = performance.now();
      const hits = (await later.searchSessions(QUERIES[1])).length;
      rows.push({ query: QUERIES[1], first: 'in the next window', ms: Math.round(performance.now() - started), hits });
    } finally {
      await later.close();
    }
    console.table(rows);
    const result = { date: new Date().toISOString(), sessions: count, messagesPerSession: 4, seedMs, searchFiles: searchFiles.length, searchBytes, cores: cpus().length, load: loadavg().map((l) => Math.round(l * 10) / 10), rows, target: { ms: 200 } };
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'sessionSearch.json'), JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify({ seedMs, searchFiles: searchFiles.length, searchBytes, load: result.load }));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

void main();
