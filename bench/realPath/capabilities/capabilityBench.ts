/**
 * The parent side of a capability bench: each (scenario, build, round) runs in a fresh process
 * (the capability's run file), the builds' order alternating round by round so the old and the new
 * build see the same load; numbers are reduced to medians over rounds (a list of numbers: the
 * median of all of them), text is kept from the first run. Writes bench/results/<name>.json.
 */
import { execFileSync } from 'child_process';
import { mkdirSync, writeFileSync } from 'fs';
import { loadavg } from 'os';
import { join } from 'path';
import { median } from '../../median';
import { REPOSITORY_ROOT } from '../startExtension';

export function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

export interface Build {
  name: string;
  root: string;
}

/** This checkout, and the one `--old` names. */
export function builds(): Build[] {
  const oldRoot = flag('old');
  return [{ name: 'new', root: REPOSITORY_ROOT }, ...(oldRoot ? [{ name: 'old', root: oldRoot }] : [])];
}

export type RunResult = Record<string, number | number[] | string | string[] | boolean>;

function runChild(runFile: string, options: object, env?: NodeJS.ProcessEnv): RunResult {
  const out = execFileSync(process.execPath, ['-r', join(REPOSITORY_ROOT, 'test', 'register.cjs'), runFile, JSON.stringify(options)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 24,
    timeout: 10 * 60_000,
    env: { ...process.env, ...env },
  });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as RunResult;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

function reduce(runs: RunResult[]): RunResult {
  const out: RunResult = {};
  for (const key of Object.keys(runs[0] ?? {})) {
    const values = runs.map((r) => r[key]);
    const first = values[0];
    if (typeof first === 'number') out[key] = round1(median(values as number[]));
    else if (Array.isArray(first) && (first.length === 0 || typeof first[0] === 'number')) out[key] = round1(median((values as number[][]).flat()));
    else out[key] = first!;
  }
  return out;
}

export interface Scenario {
  name: string;
  /** Passed to the run file with `extensionRoot` added. */
  options: object;
}

export async function runBench(args: { name: string; runFile: string; scenarios: Scenario[]; rounds: number; env?: NodeJS.ProcessEnv; targets: Record<string, unknown>; measures: Record<string, string> }): Promise<void> {
  const all = builds();
  const loadBefore = loadavg();
  const rows: Array<{ scenario: string; build: string } & RunResult> = [];
  for (const scenario of args.scenarios) {
    const results = new Map<string, RunResult[]>(all.map((b) => [b.name, []]));
    for (let round = 0; round < args.rounds; round++) {
      for (const build of round % 2 === 0 ? all : [...all].reverse()) {
        const result = runChild(args.runFile, { ...scenario.options, extensionRoot: build.root }, args.env);
        results.get(build.name)!.push(result);
        console.error(`${scenario.name}, ${build.name}, round ${round + 1}: ${JSON.stringify(result)}`);
      }
    }
    for (const build of all) {
      const row = { scenario: scenario.name, build: build.name, ...reduce(results.get(build.name)!) };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
  const result = {
    date: new Date().toISOString(),
    load: { before: loadBefore.map(round1), after: loadavg().map(round1) },
    builds: Object.fromEntries(all.map((b) => [b.name, b.root])),
    rounds: args.rounds,
    measures: args.measures,
    rows,
    targets: args.targets,
  };
  mkdirSync(join(REPOSITORY_ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPOSITORY_ROOT, 'bench', 'results', `${args.name}.json`), JSON.stringify(result, null, 2) + '\n');
  console.table(rows.map((row) => Object.fromEntries(Object.entries(row).filter(([, v]) => typeof v !== 'object'))));
}
