// Runs every test suite the project has and ends with one line: `tests: N passed, M failed`.
// A step that is not a test suite (type check, build, install) counts as one failure if it fails.
// The summary gives each step's time. Tests at scale (files named *.scale.test.ts: thousands of
// sessions, 100 MB outputs, processes killed while saving) are a tier of their own, run last.
import { spawnSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const only = process.argv.slice(2); // e.g. `node scripts/test-all.mjs unit scale`
const SCALE_TESTS = 'test/unit/**/*.scale.test.ts';
// The unit tests run in two worker processes (the machine's two cores); each file runs whole in one.
const UNIT_WORKERS = ['--parallel', '--jobs', '2'];
const countsDir = mkdtempSync(join(tmpdir(), 'tally-counts-'));
const steps = [
  { name: 'typecheck', command: 'npx', args: ['tsc', '-p', '.'] },
  // Core on its own, without Node's types: a Node global in core fails here.
  { name: 'typecheck-core', command: 'npx', args: ['tsc', '-p', 'src/core'] },
  // Layers, the agent builder and the 400-line limit (src/, webview/, test/).
  { name: 'layers', command: 'npx', args: ['eslint', 'src', 'webview', 'test'] },
  { name: 'build', command: 'node', args: ['scripts/build.mjs'] },
  { name: 'sandbox-setup', command: 'bash', args: ['scripts/ensure-bubblewrap.sh'] },
  { name: 'unit', command: 'npx', args: ['mocha', ...UNIT_WORKERS, '--ignore', SCALE_TESTS, '--reporter', './test/reporters/countingSpec.cjs'], counted: true },
  { name: 'browser-setup', command: 'bash', args: ['scripts/ensure-chromium.sh'] },
  // One worker: two (sharing one Chromium) took as long on two cores, which Chromium keeps busy.
  { name: 'webview', command: 'npx', args: ['mocha', '--no-package', '-r', './test/register.cjs', '--timeout', '60000', '--reporter', './test/reporters/countingSpec.cjs', 'test/webview/*.test.ts'], counted: true },
  { name: 'vscode-setup', command: 'bash', args: ['scripts/vscode/install-code-server.sh'], when: 'scripts/vscode/install-code-server.sh' },
  { name: 'vscode', command: 'node', args: ['scripts/vscode/run-tests.mjs'], counted: true, when: 'scripts/vscode/run-tests.mjs' },
  { name: 'scale', command: 'npx', args: ['mocha', '--no-package', '-r', './test/register.cjs', '--timeout', '20000', ...UNIT_WORKERS, '--reporter', './test/reporters/countingSpec.cjs', SCALE_TESTS], counted: true },
];
const runStarted = Date.now();

let passed = 0;
let failed = 0;
const summary = [];
const failedTests = [];
for (const step of steps) {
  if (only.length && !only.includes(step.name)) continue;
  if (step.when && !existsSync(step.when)) continue;
  const countsFile = join(countsDir, `${step.name}.json`);
  const started = Date.now();
  console.log(`\n=== ${step.name}: ${step.command} ${step.args.join(' ')}`);
  const result = spawnSync(step.command, step.args, {
    stdio: 'inherit',
    env: { ...process.env, TALLY_TEST_COUNTS: countsFile },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (step.counted && existsSync(countsFile)) {
    const counts = JSON.parse(readFileSync(countsFile, 'utf8'));
    passed += counts.passed;
    failed += counts.failed;
    for (const title of counts.failures ?? []) failedTests.push(`${step.name}: ${title}`);
    // A runner that crashed after writing counts still failed.
    if (result.status !== 0 && counts.failed === 0) failed += 1;
    summary.push(`${step.name}: ${counts.passed} passed, ${counts.failed} failed (${seconds}s)`);
  } else if (result.status !== 0) {
    failed += 1;
    summary.push(`${step.name}: FAILED with exit ${result.status ?? result.signal} (${seconds}s)`);
  } else {
    summary.push(`${step.name}: ok (${seconds}s)`);
  }
}
rmSync(countsDir, { recursive: true, force: true });
// The failed tests are named again here, near the end, where a CI log's tail still shows them.
if (failedTests.length) console.log(`\nfailed tests:\n${failedTests.map((t) => `  ✘ ${t}`).join('\n')}`);
console.log('\n' + summary.join('\n'));
console.log(`total: ${((Date.now() - runStarted) / 1000).toFixed(1)}s`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
