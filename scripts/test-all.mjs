// Runs every test suite the project has and ends with one line: `tests: N passed, M failed`.
// A step that is not a test suite (type check, build, install) counts as one failure if it fails.
// The summary gives each step's time. Installing Chromium and code-server runs beside the steps
// before the suites that need them. Tests at scale (files named *.scale.test.ts: thousands of
// sessions, 100 MB outputs, processes killed while saving) are a tier of their own, run last.
import { spawn } from 'child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const only = process.argv.slice(2); // e.g. `node scripts/test-all.mjs unit scale`
const SCALE_TESTS = 'test/unit/**/*.scale.test.ts';
// The unit tests run in two worker processes (the machine's two cores); each file runs whole in one.
const UNIT_WORKERS = ['--parallel', '--jobs', '2'];
const countsDir = mkdtempSync(join(tmpdir(), 'tally-counts-'));
const steps = [
  // First: the agent's commands run under bubblewrap (apt-get, before the setups below use it too).
  { name: 'sandbox-setup', command: 'bash', args: ['scripts/ensure-bubblewrap.sh'] },
  // Installing Chromium and code-server waits mostly on the network and the package manager: it
  // runs beside the steps before the suites that need it, one install after the other (apt-get).
  { name: 'browser-setup', command: 'bash', args: ['scripts/ensure-chromium.sh'], beside: true },
  { name: 'vscode-setup', command: 'bash', args: ['scripts/vscode/install-code-server.sh'], when: 'scripts/vscode/install-code-server.sh', beside: true },
  { name: 'typecheck', command: 'npx', args: ['tsc', '-p', '.'] },
  // Core on its own, without Node's types: a Node global in core fails here.
  { name: 'typecheck-core', command: 'npx', args: ['tsc', '-p', 'src/core'] },
  // Layers, the agent builder and the 400-line limit (src/, webview/, test/).
  { name: 'layers', command: 'npx', args: ['eslint', 'src', 'webview', 'test'] },
  { name: 'build', command: 'node', args: ['scripts/build.mjs'] },
  { name: 'unit', command: 'npx', args: ['mocha', ...UNIT_WORKERS, '--ignore', SCALE_TESTS, '--reporter', './test/reporters/countingSpec.cjs'], counted: true },
  // One worker: two (sharing one Chromium) took as long on two cores, which Chromium keeps busy.
  { name: 'webview', command: 'npx', args: ['mocha', '--no-package', '-r', './test/register.cjs', '--timeout', '60000', '--reporter', './test/reporters/countingSpec.cjs', 'test/webview/*.test.ts'], counted: true, after: 'browser-setup' },
  { name: 'vscode', command: 'node', args: ['scripts/vscode/run-tests.mjs'], counted: true, when: 'scripts/vscode/run-tests.mjs', after: 'vscode-setup' },
  { name: 'scale', command: 'npx', args: ['mocha', '--no-package', '-r', './test/register.cjs', '--timeout', '20000', ...UNIT_WORKERS, '--reporter', './test/reporters/countingSpec.cjs', SCALE_TESTS], counted: true },
];
const runStarted = Date.now();

let passed = 0;
let failed = 0;
const summary = [];
const failedTests = [];

/** Runs one step; a step beside the others writes to a log file, printed when a suite waits for it. */
function run(step, log) {
  const started = Date.now();
  const countsFile = join(countsDir, `${step.name}.json`);
  const out = log ? openSync(log, 'w') : 'inherit';
  const child = spawn(step.command, step.args, { stdio: ['ignore', out, out], env: { ...process.env, TALLY_TEST_COUNTS: countsFile } });
  return new Promise((resolve) => {
    const done = (status) => {
      if (log) closeSync(out);
      resolve({ status, seconds: ((Date.now() - started) / 1000).toFixed(1), countsFile });
    };
    child.on('error', () => done(127));
    child.on('exit', (code, signal) => done(code ?? signal));
  });
}

function record(step, { status, seconds, countsFile }, note = '') {
  if (step.counted && existsSync(countsFile)) {
    const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
    passed += counts.passed;
    failed += counts.failed;
    for (const title of counts.failures ?? []) failedTests.push(`${step.name}: ${title}`);
    // A runner that crashed after writing counts still failed.
    if (status !== 0 && counts.failed === 0) failed += 1;
    summary.push(`${step.name}: ${counts.passed} passed, ${counts.failed} failed (${seconds}s)`);
  } else if (status !== 0) {
    failed += 1;
    summary.push(`${step.name}: FAILED with exit ${status} (${seconds}s${note})`);
  } else {
    summary.push(`${step.name}: ok (${seconds}s${note})`);
  }
}

const included = steps.filter((step) => (!only.length || only.includes(step.name)) && (!step.when || existsSync(step.when)));
// The steps beside the others, one after the other, started once the foreground's first step (the sandbox's apt-get) is done.
const besideDone = new Map();
let startBeside = () => {
  startBeside = () => undefined;
  let chain = Promise.resolve();
  for (const step of included.filter((s) => s.beside)) {
    const log = join(countsDir, `${step.name}.log`);
    chain = chain.then(() => run(step, log).then((result) => ({ ...result, log })));
    besideDone.set(step.name, chain);
  }
};

async function waitFor(name) {
  const step = included.find((s) => s.name === name);
  const done = besideDone.get(name);
  if (!step || !done) return;
  besideDone.delete(name);
  const result = await done;
  console.log(`\n=== ${step.name} (ran beside the steps before): ${step.command} ${step.args.join(' ')}`);
  process.stdout.write(readFileSync(result.log, 'utf8'));
  record(step, result, ', beside');
}

for (const step of included) {
  if (step.beside) continue;
  if (step.after) await waitFor(step.after);
  console.log(`\n=== ${step.name}: ${step.command} ${step.args.join(' ')}`);
  record(step, await run(step));
  if (step.name === 'sandbox-setup' || !included.some((s) => s.name === 'sandbox-setup')) startBeside();
}
startBeside();
for (const name of [...besideDone.keys()]) await waitFor(name);
rmSync(countsDir, { recursive: true, force: true });
// The failed tests are named again here, near the end, where a CI log's tail still shows them.
if (failedTests.length) console.log(`\nfailed tests:\n${failedTests.map((t) => `  ✘ ${t}`).join('\n')}`);
console.log('\n' + summary.join('\n'));
console.log(`total: ${((Date.now() - runStarted) / 1000).toFixed(1)}s`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
