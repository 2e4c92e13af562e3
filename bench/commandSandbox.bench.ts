/**
 * What the sandbox adds to a command: the agent's run_command through the tool registry (the card's
 * sandbox line, the allowance check, the Node workspace's exec that the extension's workspace
 * inherits) with the session's sandbox against the same registry without one, alternating call by
 * call in one process; then the workspace's exec alone both ways, and with the network allowed.
 * The command is `true`: what is measured is the start and end of a command, not its work. Wall
 * time and CPU time (Tally's and the command's processes') per command: on a loaded machine the
 * wall time is mostly waiting for a CPU.
 * Run: node -r ./test/register.cjs bench/commandSandbox.bench.ts [--rounds n] [--out file]
 */
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { homedir, loadavg } from 'os';
import { join } from 'path';
import { builtinTools } from '../src/core/tools/builtin';
import { CommandSandbox } from '../src/node/sandbox/commandSandbox';
import { NodeWorkspace } from '../src/node/tools/nodeWorkspace';
import { runOptions, testRegistry } from '../test/support/toolRegistry';
import { median } from './median';
import '../src/node/usePlatform';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const rounds = Number(arg('rounds') ?? 40);
const out = arg('out') ?? join(__dirname, 'results', 'commandSandbox.json');

const summary = (ms: number[], cpu: number) => ({ median: +median(ms).toFixed(1), p90: +[...ms].sort((a, b) => a - b)[Math.floor(ms.length * 0.9)].toFixed(1), min: +Math.min(...ms).toFixed(1), cpuPerCommand: +(cpu / ms.length).toFixed(1) });

/** CPU milliseconds of this process and of its children it waited for (/proc/self/stat's cutime and cstime, in 10 ms ticks): what a loaded machine's waiting leaves out. */
function cpuNow(): number {
  const own = process.cpuUsage();
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const childrenTicks = Number(fields[13]) + Number(fields[14]);
  return (own.user + own.system) / 1000 + childrenTicks * 10;
}

async function alternate(label: string, runs: Record<string, () => Promise<unknown>>) {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]));
  const cpu: Record<string, number> = Object.fromEntries(Object.keys(runs).map((k) => [k, 0]));
  for (const run of Object.values(runs)) await run(); // warm: the probe, the module loads
  for (let i = 0; i < rounds; i++) {
    for (const [name, run] of Object.entries(runs)) {
      const cpuStart = cpuNow();
      const start = performance.now();
      await run();
      times[name].push(performance.now() - start);
      cpu[name] += cpuNow() - cpuStart;
    }
  }
  const result = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, summary(v, cpu[k])]));
  console.log(label, JSON.stringify(result));
  return result;
}

async function main() {
  const root = mkdtempSync('/var/tmp/tally-bench-sandbox-');
  const ws = join(root, 'ws');
  mkdirSync(ws);
  const loadBefore = loadavg()[0];
  const settings = () => ({ enabled: true, home: homedir(), extraHidden: [], storage: [] });
  try {
    const sandboxed = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'ask' }, sandbox: new CommandSandbox(settings) });
    const plain = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'ask' }, sandbox: 'none' });
    let n = 0;
    const call = (registry: typeof plain) => async () => {
      const r = await registry.run({ id: `b${++n}`, name: 'run_command', arguments: '{"command":"true"}' }, runOptions());
      if (r.isError) throw new Error(String(r.output));
    };
    const tool = await alternate('run_command', { sandboxed: call(sandboxed), unsandboxed: call(plain) });

    const options = { cwd: ws, timeoutMs: 20_000, maxOutputBytes: 65_536, signal: new AbortController().signal };
    const networked = new CommandSandbox(settings);
    networked.allowNetwork();
    const exec = (workspace: NodeWorkspace) => () => workspace.exec('true', options);
    const workspaceExec = await alternate('exec', {
      sandboxed: exec(new NodeWorkspace({ folders: [ws], trusted: true }, new CommandSandbox(settings))),
      sandboxedWithNetwork: exec(new NodeWorkspace({ folders: [ws], trusted: true }, networked)),
      unsandboxed: exec(new NodeWorkspace({ folders: [ws], trusted: true })),
    });
    const added = +(tool.sandboxed.median - tool.unsandboxed.median).toFixed(1);
    const result = {
      when: new Date().toISOString(),
      load: { before: +loadBefore.toFixed(2), after: +loadavg()[0].toFixed(2) },
      bubblewrap: execFileSync('bwrap', ['--version']).toString().trim(),
      node: process.version,
      rounds,
      runCommand: tool,
      exec: workspaceExec,
      addedPerCommandMs: added,
      addedCpuPerCommandMs: +(tool.sandboxed.cpuPerCommand - tool.unsandboxed.cpuPerCommand).toFixed(1),
      addedExecMs: +(workspaceExec.sandboxed.median - workspaceExec.unsandboxed.median).toFixed(1),
      addedExecWithNetworkMs: +(workspaceExec.sandboxedWithNetwork.median - workspaceExec.unsandboxed.median).toFixed(1),
    };
    console.log(`added per command (run_command, median): ${added} ms wall, ${result.addedCpuPerCommandMs} ms CPU; target ≤ 30 ms`);
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
