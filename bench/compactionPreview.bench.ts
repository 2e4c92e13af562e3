/**
 * The compaction preview alone on the real path: the built extension on a session of N messages
 * (seedSession.ts, flushed every 250), the inspector's Preview compaction intent, the longest
 * event-loop block until the preview is posted (wall, and in the process's CPU time, which waiting
 * for a CPU on a loaded machine does not lengthen). Runs largePayloads/hostRun.ts with only the
 * preview; each (build, round) in a fresh process, with --old the other build in every round too,
 * the order alternating. Writes bench/results/compactionPreview.json.
 * Run: node scripts/build.mjs && node -r ./test/register.cjs bench/compactionPreview.bench.ts [--messages 10000] [--old <extension root>] [--rounds 2]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, rmSync, writeFileSync } from 'fs';
import { loadavg } from 'os';
import { join } from 'path';
import { seedPreviewSession, type HostRunResult } from './largePayloads/hostRun';
import { median } from './median';
import { REPOSITORY_ROOT } from './realPath/startExtension';

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

type Preview = NonNullable<HostRunResult['preview']>;

function previewRun(extensionRoot: string, previewMessages: number, seededStorage: string): Preview {
  const options = { extensionRoot, payloads: [], previewMessages, seededStorage };
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), join(__dirname, 'largePayloads', 'hostRun.ts'), JSON.stringify(options)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24, timeout: 20 * 60_000 });
  const result = JSON.parse(out.trim().split('\n').pop() ?? '') as HostRunResult;
  if (!result.preview) throw new Error('the run measured no preview');
  return result.preview;
}

async function main() {
  const messages = Number(flag('messages') ?? 10_000);
  const rounds = Number(flag('rounds') ?? 2);
  const oldRoot = flag('old');
  const builds = [{ name: 'new', root: REPOSITORY_ROOT }, ...(oldRoot ? [{ name: 'old', root: oldRoot }] : [])];
  const loadBefore = loadavg();
  const runs = new Map<string, Preview[]>(builds.map((b) => [b.name, []]));
  const seeded = await seedPreviewSession(messages);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const preview = previewRun(build.root, messages, seeded);
        runs.get(build.name)!.push(preview);
        console.error(`${messages} messages, ${build.name}, round ${round + 1}: block ${preview.blockMs} ms (CPU ${preview.blockCpuMs} ms), preview posted after ${Math.round(preview.ms)} ms (load ${loadavg()[0].toFixed(1)})`);
      }
    }
  } finally {
    rmSync(seeded, { recursive: true, force: true });
  }
  const rows = builds.map((build) => {
    const of = runs.get(build.name)!;
    return { build: build.name, messages, blockMs: median(of.map((p) => p.blockMs)), blockCpuMs: median(of.map((p) => p.blockCpuMs)), previewMs: Math.round(median(of.map((p) => p.ms))), runs: of.length };
  });
  console.table(rows);
  mkdirSync(join(REPOSITORY_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(REPOSITORY_ROOT, 'bench', 'results', 'compactionPreview.json'),
    `${JSON.stringify({ date: new Date().toISOString(), load: { before: loadBefore, after: loadavg() }, builds: Object.fromEntries(builds.map((b) => [b.name, b.root])), rounds, measures: { blockMs: 'longest event-loop block from the Preview compaction intent until the preview is posted', blockCpuMs: 'the same in the process’s CPU time', previewMs: 'until the preview is posted' }, rows, runs: Object.fromEntries(runs) }, null, 2)}\n`,
  );
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
