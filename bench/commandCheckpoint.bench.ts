/**
 * What recording the workspace around a command costs: a workspace of N files (2 KB each, 100 per
 * folder, last changed an hour ago: an existing project), the wait a command gets before it runs
 * and after it ends (the recorder's work around a command that changes one file), for the first
 * command of a turn (every file read and stored) and the next two (nothing to read again), with
 * the file-system calls made (counted by wrapping `fs`) and the longest the event loop was held.
 * `--old <root>`: the same with the checkpoint code of another checkout (e.g. `git archive` of an
 * older commit), alternating with this one round by round, in one process.
 * Run: node -r ./test/register.cjs bench/commandCheckpoint.bench.ts [files] [--old <root>] [--rounds n]
 */
import { withBlockProbe } from './blockProbe';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import '../src/node/usePlatform';

const calls: Record<string, number> = {};
function countCalls(target: Record<string, unknown>, names: string[], prefix = ''): void {
  for (const name of names) {
    const original = target[name] as (...args: unknown[]) => unknown;
    target[name] = (...args: unknown[]) => {
      calls[prefix + name] = (calls[prefix + name] ?? 0) + 1;
      return original(...args);
    };
  }
}
// The module object itself (an `import * as` is a copy whose properties the code under test does not read).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('fs') as Record<string, unknown> & { promises: Record<string, unknown> };
countCalls(fs.promises, ['readdir', 'lstat', 'readFile', 'writeFile']);
countCalls(fs, ['readdirSync', 'lstatSync', 'readFileSync']);

interface Build {
  name: string;
  Recorder: typeof import('../src/core/checkpoints/turnRecorder').TurnCheckpointRecorder;
  Store: typeof import('../src/node/checkpoints/fileCheckpointStore').FileCheckpointStore;
}

function loadBuild(name: string, root: string): Build {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    name,
    Recorder: require(join(root, 'src/core/checkpoints/turnRecorder.ts')).TurnCheckpointRecorder,
    Store: require(join(root, 'src/node/checkpoints/fileCheckpointStore.ts')).FileCheckpointStore,
  };
}

async function run(build: Build, files: number) {
  const root = mkdtempSync(join(tmpdir(), 'tally-bench-checkpoints-'));
  const workspace = join(root, 'workspace');
  const anHourAgo = new Date(Date.now() - 3600_000);
  try {
    for (let i = 0; i < files; i++) {
      const dir = join(workspace, `dir${Math.floor(i / 100)}`);
      if (i % 100 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `file${i}.ts`), `// file ${i}\n${'x'.repeat(2000)}\n`);
      utimesSync(join(dir, `file${i}.ts`), anHourAgo, anHourAgo);
      if (i % 100 === 99) utimesSync(dir, anHourAgo, anHourAgo);
    }
    utimesSync(workspace, anHourAgo, anHourAgo);
    const recorder = new build.Recorder(new build.Store(join(root, 'storage')));
    recorder.begin('bench', 'turn');
    const commands: Array<{ command: string; ms: number; blockMs: number; calls: Record<string, number> }> = [];
    for (const [index, command] of ['first command', 'second command', 'third command'].entries()) {
      for (const key of Object.keys(calls)) delete calls[key];
      const started = performance.now();
      const { blockMs } = await withBlockProbe(() => recorder.aroundCommand([workspace], async () => writeFileSync(join(workspace, 'dir0', `file${index}.ts`), `changed by command ${index}\n`)));
      commands.push({ command, ms: Math.round(performance.now() - started), blockMs, calls: { ...calls } });
    }
    const checkpoint = await recorder.end();
    return { build: build.name, commands, problems: checkpoint?.problems ?? [], filesRecorded: checkpoint?.files.length ?? 0 };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const old = option('--old');
  const rounds = Number(option('--rounds') ?? 1);
  const files = Number(args[0] ?? 5000);
  const builds = [loadBuild('this', resolve(__dirname, '..')), ...(old ? [loadBuild('old', resolve(old))] : [])];
  const runs = [];
  for (let round = 0; round < rounds; round++) for (const build of round % 2 ? [...builds].reverse() : builds) runs.push({ round, ...(await run(build, files)) });
  console.log(JSON.stringify({ files, at: new Date().toISOString(), load: (await import('os')).loadavg().map((l) => Math.round(l * 10) / 10), runs }, null, 2));
}

void main();
