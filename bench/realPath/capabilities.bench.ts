/**
 * Where the user waits on web fetch, images and the todo list, through the built extension as VS
 * Code drives it (capabilityRun.ts), with a session already N messages long:
 * - web: the model calls fetch_url on a 200 KB and a 5 MB page (served by the bench's model server
 *   process); the turn's wall time, the host's longest block while the page is fetched and made
 *   readable, the bytes of the request after it (what of the page the model is sent), and whether
 *   the page went to the reader thread (dist/readableWorker.js);
 * - images: a 20 MB camera JPEG attached as a file (refused: over the 5 MB an image may be), a
 *   12-megapixel screenshot PNG attached as a file and shrunk (the host's two halves of Shrink),
 *   the same PNG pasted and sent; plain turns before and after it, at 1K and 10K messages (an image
 *   in the session must not make every later turn cost more);
 * - todos: update_todos turns against plain turns at 1K and 10K messages, then /compact with a list
 *   to carry and a turn after it.
 * Each (build, scenario, size, round) runs in a fresh process; with --old the other build runs in
 * every round too, the order alternating. Writes bench/results/realPath-capabilities.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/capabilities.bench.ts [web|images|todos…] [--old <extension root>] [--rounds 2] [--profile <folder for a CPU profile of each run>]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { median } from '../median';
import type { CapabilityRunOptions, CapabilityRunResult, Step } from './capabilityRun';
import { articlePage, photoJpeg, screenshotPng } from './mediaAssets';
import { seedSession } from './seedSession';
import { REPOSITORY_ROOT } from './startExtension';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const plain = (label: string): Step => ({ kind: 'turn', label, text: 'Which files are in the workspace?', script: ['tool', 'text'] });
const plains = (label: string, n: number): Step[] => Array.from({ length: n }, () => plain(label));
const todos = (done: number): Step => ({
  kind: 'turn',
  label: 'update_todos turn',
  text: 'Plan the refactor as a todo list.',
  script: [{ tool: 'update_todos', args: { todos: Array.from({ length: 8 }, (_, i) => ({ text: `Step ${i + 1}: move module ${i} behind the new interface and run its tests`, status: i < done ? 'done' : i === done ? 'in_progress' : 'pending' })) } }, 'text'],
});
const fetchTurn = (label: string, page: string): Step => ({ kind: 'turn', label, text: `Summarize {page}${page}`, script: [{ tool: 'fetch_url', args: { url: `{page}${page}` } }, 'text'] });

interface Scenario {
  name: string;
  sizes: number[];
  steps: Step[];
}

const SCENARIOS: Scenario[] = [
  {
    name: 'web',
    sizes: [1_000],
    steps: [plain('warm-up (cold first turn)'), fetchTurn('fetch_url 200 KB page (asks twice)', 'page-200k.html'), fetchTurn('fetch_url 5 MB page', 'page-5m.html'), plain('turn after the pages')],
  },
  {
    name: 'images',
    sizes: [1_000, 10_000],
    steps: [
      plain('warm-up (cold first turn)'),
      ...plains('turn before an image', 3),
      { kind: 'attachFile', label: 'attach 20 MB JPEG file', path: 'photo-20mb.jpg' },
      { kind: 'clearChips', label: 'clear' },
      { kind: 'attachFile', label: 'attach 12 MP PNG file', path: 'screen-12mp.png' },
      { kind: 'shrink', label: 'Shrink the 12 MP PNG' },
      { kind: 'clearChips', label: 'clear' },
      { kind: 'pasteImage', label: 'paste 12 MP PNG', file: 'screen-12mp.png', mediaType: 'image/png' },
      { kind: 'turn', label: 'turn sending the pasted PNG', text: 'What does this screenshot show?', script: ['text'] },
      ...plains('turn with the image in the session', 3),
    ],
  },
  {
    name: 'todos',
    sizes: [1_000, 10_000],
    steps: [plain('warm-up (cold first turn)'), ...plains('turn without a todo list', 3), todos(0), todos(1), todos(2), ...plains('turn holding a todo list', 2), { kind: 'turn', label: '/compact carrying the list', text: '/compact', script: [] }, todos(3), plain('turn after the compaction')],
  },
];

function runOnce(options: CapabilityRunOptions): CapabilityRunResult {
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), join(__dirname, 'capabilityRun.ts'), JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26, timeout: 20 * 60_000 });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as CapabilityRunResult;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function main() {
  const oldRoot = flag('old');
  const rounds = Number(flag('rounds') ?? 2);
  const chosen = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const scenarios = SCENARIOS.filter((s) => chosen.length === 0 || chosen.includes(s.name));
  const builds = [{ name: 'new', root: REPOSITORY_ROOT }, ...(oldRoot ? [{ name: 'old', root: oldRoot }] : [])];
  const loadBefore = loadavg();
  const assets = mkdtempSync(join(tmpdir(), 'tally-bench-media-'));
  writeFileSync(join(assets, 'page-200k.html'), articlePage(200_000));
  writeFileSync(join(assets, 'page-5m.html'), articlePage(5_000_000));
  writeFileSync(join(assets, 'screen-12mp.png'), screenshotPng(4000, 3000));
  writeFileSync(join(assets, 'photo-20mb.jpg'), photoJpeg(5472, 3648, 20_000_000));
  const files = ['page-200k.html', 'page-5m.html', 'screen-12mp.png', 'photo-20mb.jpg'].map((f) => join(assets, f));
  const rows: Array<Record<string, unknown>> = [];
  const workers: Record<string, string[]> = {};
  try {
    for (const size of [...new Set(scenarios.flatMap((s) => s.sizes))]) {
      const seeded = mkdtempSync(join(tmpdir(), `tally-bench-seed-${size}-`));
      await seedSession(seeded, size);
      for (const scenario of scenarios.filter((s) => s.sizes.includes(size))) {
        const results = new Map<string, CapabilityRunResult[]>(builds.map((b) => [b.name, []]));
        for (let round = 0; round < rounds; round++) {
          for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
            console.error(`${scenario.name} at ${size} messages, ${build.name}, round ${round + 1}`);
            const profileDir = flag('profile');
            const result = runOnce({ extensionRoot: build.root, seededStorage: seeded, files, steps: scenario.steps, ...(profileDir ? { profileTo: join(profileDir, `${scenario.name}-${size}-${build.name}-${round + 1}.cpuprofile`) } : {}) });
            results.get(build.name)!.push(result);
            workers[`${scenario.name}/${build.name}`] = result.workers;
          }
        }
        for (const build of builds) {
          const runs = results.get(build.name)!;
          const labels = [...new Set(runs[0].steps.map((s) => s.label))];
          for (const label of labels) {
            const all = runs.flatMap((r) => r.steps.filter((s) => s.label === label));
            const lastRequest = all.filter((s) => s.requestBytes?.length).map((s) => s.requestBytes![s.requestBytes!.length - 1]);
            const row = {
              scenario: scenario.name,
              messages: size,
              build: build.name,
              step: label,
              n: all.length,
              wallMs: round1(median(all.map((s) => s.wallMs))),
              ...(all[0].shareMs !== undefined ? { shareMs: round1(median(all.map((s) => s.shareMs!))) } : {}),
              cpuMs: round1(median(all.map((s) => s.cpuMs))),
              blockMs: round1(median(all.map((s) => s.blockMs))),
              maxBlockMs: round1(Math.max(...all.map((s) => s.blockMs))),
              ...(lastRequest.length ? { lastRequestKB: Math.round(median(lastRequest) / 1024) } : {}),
              ...(all[0].chip ? { shown: all[0].chip.slice(0, 240) } : {}),
            };
            rows.push(row);
            console.log(JSON.stringify(row));
          }
        }
      }
      rmSync(seeded, { recursive: true, force: true });
    }
  } finally {
    rmSync(assets, { recursive: true, force: true });
  }
  const result = {
    date: new Date().toISOString(),
    load: { before: loadBefore.map(round1), after: loadavg().map(round1) },
    builds: Object.fromEntries(builds.map((b) => [b.name, b.root])),
    measures: {
      wallMs: 'the step from the intent to its end (a turn: to turn_end; an attachment: to the composer post with the chip), median over runs',
      shareMs: 'a turn’s wall time minus the model server’s time inside its handlers',
      blockMs: 'the longest the host’s event loop went without a turn during the step, median; maxBlockMs the largest',
      lastRequestKB: 'the bytes of the turn’s last request (after a fetch: what of the page the model is sent)',
      workers: 'the worker scripts each build started',
    },
    workers,
    rows,
    targets: { blockMs: 50, imageTurnGrowth: 'a turn with an image in the session costs what one without it does, at 1K and at 10K messages', todoShareMsAt10000: 20 },
  };
  mkdirSync(join(REPOSITORY_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPOSITORY_ROOT, 'bench', 'results', chosen.length ? `realPath-capabilities-${chosen.join('-')}.json` : 'realPath-capabilities.json'), JSON.stringify(result, null, 2) + '\n');
  console.table(rows.map(({ shown: _s, ...row }) => row));
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
