/**
 * What recording the workspace around a command costs, where the user waits: the recorder's work
 * before a command runs and after it ends, in a new window (a new store), for
 *   - the window's first command (nothing kept yet),
 *   - three commands that change nothing,
 *   - a command that rewrites one file,
 *   - the next turn's first command (nothing changed),
 * with the file-system calls made (counted by wrapping `fs`), the longest the event loop was held,
 * what the turn says was not recorded, and the bytes written to the checkpoint storage.
 *
 * Workspaces: a synthetic tree of N files (2 KB each, 100 a folder, last changed an hour ago), and
 * real checkouts given with `--tree <path>` (a git clone; the bench rewrites one tracked file and
 * puts it back with git afterwards). Real trees are checked out at bench time under bench/tmp/
 * (never committed), e.g. `git clone -q /work/.mirror/git+git/repo bench/tmp/git`.
 * A real tree gets one `git status` first, as the editor's git extension runs after a checkout (it
 * rewrites an index written in the same instant as the last files checked out, whose entries git
 * cannot vouch for yet).
 * `--think <ms>`: the turn's first command comes this long after the turn began (the model's first
 * reply), and the recorder is told the turn's folders when it begins (`prepare`), as the extension
 * does; without it the first command comes at once. `--gap <ms>`: each command's result is followed by
 * this long before the next command (the model's reply to it); without it the commands follow
 * one another at once, leaving the recorder no time between them. `--old <root>`: the same with the checkpoint
 * code of another checkout (e.g. `git archive` of an older commit's src/), alternating with this one
 * round by round, in one process.
 * Run: node -r ./test/register.cjs bench/commandCheckpoint.bench.ts [files] [--tree <path>]... [--think <ms>] [--gap <ms>] [--old <root>] [--rounds n]
 */
import { withBlockProbe } from './blockProbe';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'fs';
import { loadavg, tmpdir } from 'os';
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
countCalls(fs, ['readdirSync', 'lstatSync', 'statSync', 'readFileSync', 'openSync']);

interface Recorder {
  begin(sessionId: string, messageId: string): void;
  /** Not in older builds. */
  prepare?(folders: readonly string[]): void;
  aroundCommand<T>(folders: readonly string[], run: () => Promise<T>): Promise<T>;
  end(): Promise<{ files: unknown[]; problems: string[] } | undefined>;
}
interface Build {
  name: string;
  Recorder: new (store: unknown) => Recorder;
  Store: new (root: string) => { dispose?(): void };
}

function loadBuild(name: string, root: string): Build {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    name,
    Recorder: require(join(root, 'src/core/checkpoints/turnRecorder.ts')).TurnCheckpointRecorder,
    Store: require(join(root, 'src/node/checkpoints/fileCheckpointStore.ts')).FileCheckpointStore,
  };
}

function syntheticTree(root: string, files: number): string {
  const workspace = join(root, 'workspace');
  const anHourAgo = new Date(Date.now() - 3600_000);
  for (let i = 0; i < files; i++) {
    const dir = join(workspace, `dir${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${i}.ts`), `// file ${i}\n${'x'.repeat(2000)}\n`);
    utimesSync(join(dir, `file${i}.ts`), anHourAgo, anHourAgo);
    if (i % 100 === 99) utimesSync(dir, anHourAgo, anHourAgo);
  }
  utimesSync(workspace, anHourAgo, anHourAgo);
  return workspace;
}

function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(path) : statSync(path).size;
  }
  return total;
}

/** A file the commands rewrite: in a real tree, a tracked one (put back with git after the run). */
function fileToChange(workspace: string, real: boolean): string {
  if (!real) return join(workspace, 'dir0', 'file0.ts');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: workspace, encoding: 'utf8', maxBuffer: 64 << 20 }).split('\0').filter((p) => p.endsWith('.c') || p.endsWith('.md'));
  return join(workspace, tracked[Math.floor(tracked.length / 2)]);
}

async function run(build: Build, workspace: string, real: boolean, thinkMs: number, gapMs: number) {
  const storage = mkdtempSync(join(tmpdir(), 'tally-bench-checkpoint-storage-'));
  const changed = fileToChange(workspace, real);
  const store = new build.Store(storage);
  const recorder = new build.Recorder(store);
  const commands: Array<{ command: string; ms: number; blockMs: number; calls: Record<string, number> }> = [];
  const problems: string[] = [];
  let filesRecorded = 0;
  const measure = async (command: string, effect: () => void) => {
    for (const key of Object.keys(calls)) delete calls[key];
    const started = performance.now();
    const { blockMs } = await withBlockProbe(() => recorder.aroundCommand([workspace], async () => effect()));
    commands.push({ command, ms: Math.round(performance.now() - started), blockMs, calls: { ...calls } });
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  };
  const endTurn = async () => {
    const checkpoint = await recorder.end();
    problems.push(...(checkpoint?.problems ?? []));
    filesRecorded += checkpoint?.files.length ?? 0;
  };
  const beginTurn = async (id: string) => {
    recorder.begin('bench', id);
    if (!thinkMs) return;
    recorder.prepare?.([workspace]);
    await new Promise((r) => setTimeout(r, thinkMs));
  };
  try {
    await beginTurn('turn1');
    await measure("window's first command", () => undefined);
    for (let i = 1; i <= 3; i++) await measure(`nothing changed ${i}`, () => undefined);
    await measure('one file rewritten', () => writeFileSync(changed, `changed by the bench at ${Date.now()}\n`));
    await endTurn();
    await beginTurn('turn2');
    await measure("next turn's first command", () => undefined);
    await endTurn();
    // The old code writes what it held a second after the last command: wait for it, to count what it stores.
    await new Promise((r) => setTimeout(r, 1500));
    return { build: build.name, commands, problems: [...new Set(problems)], filesRecorded, storedBytes: bytesUnder(join(storage, 'content')) };
  } finally {
    store.dispose?.();
    rmSync(storage, { recursive: true, force: true });
    if (real) execFileSync('git', ['checkout', '--', changed], { cwd: workspace });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const options = (name: string) => {
    const values: string[] = [];
    for (let at = args.indexOf(name); at >= 0; at = args.indexOf(name)) values.push(args.splice(at, 2)[1]);
    return values;
  };
  const old = options('--old')[0];
  const rounds = Number(options('--rounds')[0] ?? 1);
  const thinkMs = Number(options('--think')[0] ?? 0);
  const gapMs = Number(options('--gap')[0] ?? 0);
  const trees = options('--tree').map((t) => resolve(t));
  const files = args[0] ? Number(args[0]) : trees.length ? 0 : 5000;
  const builds = [loadBuild('this', resolve(__dirname, '..')), ...(old ? [loadBuild('old', resolve(old))] : [])];
  const root = mkdtempSync(join(tmpdir(), 'tally-bench-checkpoints-'));
  const workspaces = [...(files ? [{ name: `synthetic ${files}`, path: syntheticTree(root, files), real: false }] : []), ...trees.map((t) => ({ name: t, path: t, real: true }))];
  for (const tree of trees) execFileSync('git', ['status', '--porcelain'], { cwd: tree, stdio: 'ignore' });
  const results = [];
  try {
    for (const workspace of workspaces) {
      const runs = [];
      for (let round = 0; round < rounds; round++) {
        for (const build of round % 2 ? [...builds].reverse() : builds) {
          const load = loadavg()[0];
          runs.push({ round, load: Math.round(load * 10) / 10, ...(await run(build, workspace.path, workspace.real, thinkMs, gapMs)) });
          console.error(`${workspace.name} round ${round} ${build.name}: ${runs[runs.length - 1].commands.map((c) => c.ms).join(' / ')} ms`);
        }
      }
      results.push({ workspace: workspace.name, runs });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ at: new Date().toISOString(), thinkMs, gapMs, load: loadavg().map((l) => Math.round(l * 10) / 10), results }, null, 2));
}

void main();
