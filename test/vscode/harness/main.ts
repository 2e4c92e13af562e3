// Runs the extension-host suites (trusted, and Restricted Mode), the UI tests and the installed
// .vsix's listing in code-server + Chromium; prints `vscode: N passed, M failed` and writes the counts for scripts/test-all.mjs.
import { writeFileSync } from 'fs';
import { runSuite } from './runSuite';
import { runListingUiTests } from './listingUi';
import { runUiTests } from './uiTests';

// While working on a few tests: TALLY_VSCODE_PARTS=suite,ui,listing picks the parts to run (all by
// default, as CI runs them) and TALLY_VSCODE_GREP picks the extension-host tests by title.
const PARTS = new Set((process.env.TALLY_VSCODE_PARTS ?? 'suite,ui,listing').split(',').map((p) => p.trim()));

async function main() {
  let passed = 0;
  let failed = 0;
  const failures: string[] = [];
  const count = (r: { name: string; ok: boolean; detail?: string }) => {
    console.log(`${r.ok ? '✔' : '✘'} ${r.name}${r.detail ? ` — ${r.detail}` : ''}`);
    if (r.ok) return void passed++;
    failed++;
    failures.push(`${r.name}${r.detail ? ` — ${r.detail.split('\n')[0].slice(0, 300)}` : ''}`);
  };
  for (const [name, trusted] of PARTS.has('suite') ? ([['suite', true], ['suite-restricted', false]] as const) : []) {
    const r = await runSuite(name, trusted).catch((error: Error) => (console.error(`${name}: ${error.message}`), { passed: 0, failed: 1, failures: [`${name}: ${error.message}`], exitCode: 1 }));
    console.log(`${name}: ${r.passed} passed, ${r.failed} failed`);
    passed += r.passed;
    failed += r.failed;
    failures.push(...r.failures);
  }
  for (const theme of PARTS.has('ui') ? (['dark', 'light', 'high-contrast'] as const) : []) {
    const results = await runUiTests(theme).catch((error: Error) => [{ name: `${theme} UI`, ok: false, detail: error.message }]);
    for (const r of results) {
      count(r);
    }
  }
  for (const r of PARTS.has('listing') ? await runListingUiTests() : []) {
    count(r);
  }
  console.log(`vscode: ${passed} passed, ${failed} failed`);
  if (process.env.TALLY_TEST_COUNTS) writeFileSync(process.env.TALLY_TEST_COUNTS, JSON.stringify({ passed, failed, skipped: 0, failures }));
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
