/**
 * Opening a session through the built extension as VS Code drives it (startExtension.ts): the
 * chat view resolved until its first state is posted, then the inspector until its first state.
 * Sessions of 500 / 1,500 / 4,500 turns (a 10 KB output a turn, compacted by the real chain in a
 * 200,000-token window; see seedLongSession.ts) and of 1K / 10K / 50K messages that never compacted
 * (seedSession.ts: flushed every 250 messages, or in one segment file with --one-segment). Each
 * build first opens its own copy of the seed once (recording its facts of the files); then each
 * (build, session, round) runs in a fresh process (openRun.ts) on a copy of that build's store;
 * with --old, the other build runs in every round too, the order alternating round by round.
 * With --ready-after MS, the chat view is resolved that long after activation, as a VS Code window
 * resolves it once the webview has loaded (default 0: at once, the extension's work alone).
 * Writes bench/results/realPath-open.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/realPath/open.bench.ts [--turns 500,1500,4500] [--messages 1000,10000,50000] [--old <extension root>] [--rounds 2] [--one-segment] [--ready-after 300]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
import { join } from 'path';
import { median } from '../median';
import type { OpenRunOptions, OpenRunResult } from './openRun';
import { seedLongSession } from './seedLongSession';
import { copyStorage, seedSession } from './seedSession';
import { REPOSITORY_ROOT } from './startExtension';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const list = (value: string | undefined, fallback: number[]) => (value === undefined ? fallback : value.split(',').map(Number).filter((n) => n > 0));

function runOnce(options: OpenRunOptions): OpenRunResult {
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), join(__dirname, 'openRun.ts'), JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as OpenRunResult;
}

/** A copy of `seeded` without its facts files, opened once by the build at `root` in place. */
function settledCopy(seeded: string, root: string, readyAfterMs: number): string {
  const folder = mkdtempSync(join(tmpdir(), 'tally-bench-settled-'));
  copyStorage(seeded, folder);
  for (const facts of execFileSync('find', [folder, '-name', 'segments.json', '-o', '-name', 'segments.log'], { encoding: 'utf8' }).split('\n').filter(Boolean)) rmSync(facts);
  runOnce({ extensionRoot: root, seededStorage: folder, readyAfterMs, inPlace: true });
  return folder;
}

async function main() {
  const oldRoot = flag('old');
  const rounds = Number(flag('rounds') ?? 2);
  const oneSegment = process.argv.includes('--one-segment');
  const readyAfterMs = Number(flag('ready-after') ?? 0);
  const sessions = [
    ...list(flag('turns'), [500, 1_500, 4_500]).map((turns) => ({ name: `${turns} turns, compacted`, seed: (dir: string) => seedLongSession(dir, turns) })),
    // Written as a session that ran that long flushed it (a flush every 250 messages, segments sealed
    // at the store's 2 MB), unless --one-segment asks for the whole session in one segment file.
    ...list(flag('messages'), [1_000, 10_000, 50_000]).map((count) => ({ name: `${count} messages, never compacted${oneSegment ? ', one segment' : ''}`, seed: (dir: string) => seedSession(dir, count, oneSegment ? undefined : 250) })),
  ];
  const builds = oldRoot ? [{ name: 'this', root: REPOSITORY_ROOT }, { name: 'old', root: oldRoot }] : [{ name: 'this', root: REPOSITORY_ROOT }];
  const rows: Array<Record<string, unknown>> = [];
  for (const session of sessions) {
    const seeded = mkdtempSync(join(tmpdir(), 'tally-bench-seed-'));
    try {
      const seededAt = Date.now();
      await session.seed(seeded);
      console.error(`${session.name}: seeded by the real chain in ${Date.now() - seededAt} ms`);
      // Each build opens a copy of the seed once, in place, before it is measured: its own first
      // open checks the files and records its facts of them beside the segments, as the window
      // before it would have (the seed's facts are the seeding build's).
      const settled = new Map(builds.map((b) => [b.name, settledCopy(seeded, b.root, readyAfterMs)]));
      const results = new Map<string, OpenRunResult[]>(builds.map((b) => [b.name, []]));
      for (let round = 1; round < rounds + 1; round++) {
        const order = round % 2 === 0 ? builds : [...builds].reverse();
        for (const build of order) {
          const result = runOnce({ extensionRoot: build.root, seededStorage: settled.get(build.name)!, readyAfterMs });
          results.get(build.name)!.push(result);
          console.error(`${session.name} ${build.name} round ${round}: ${JSON.stringify(result)}`);
        }
      }
      for (const folder of settled.values()) rmSync(folder, { recursive: true, force: true });
      for (const build of builds) {
        const runs = results.get(build.name)!;
        const med = (key: keyof OpenRunResult) => median(runs.map((r) => r[key] ?? Number.NaN));
        rows.push({ session: session.name, build: build.name, chatStateMs: med('chatStateMs'), chatStateCpuMs: med('chatStateCpuMs'), chatStateKB: med('chatStateKB'), chatLongestBlockMs: med('chatLongestBlockMs'), chatEntries: med('chatEntries'), chatMeterMs: med('chatMeterMs'), segmentLoads: med('segmentLoads'), segmentFiles: med('segmentFiles'), inspectorStateMs: med('inspectorStateMs'), inspectorStateKB: med('inspectorStateKB'), rssMiB: med('rssMiB'), runs: runs.length });
      }
    } finally {
      rmSync(seeded, { recursive: true, force: true });
    }
  }
  console.table(rows);
  mkdirSync(join(REPOSITORY_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPOSITORY_ROOT, 'bench', 'results', 'realPath-open.json'), `${JSON.stringify({ date: new Date().toISOString(), loadavg: loadavg(), rounds, readyAfterMs, rows }, null, 2)}\n`);
}

void main();
