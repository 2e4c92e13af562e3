import Mocha from 'mocha';
import { format } from 'util';

/**
 * Runs bundled test files inside the extension host: `load` requires them after mocha's globals
 * exist. Prints `vscode-suite: N passed, M failed` (the tests that ran), which the harness reads
 * from the host's log, after one `vscode-suite failed: <title> — <error>` line per failed test.
 */
export function runMochaInHost(load: () => void): Promise<void> {
  // TALLY_VSCODE_GREP runs only the tests whose titles match (while working on a few; CI runs all).
  const grep = process.env.TALLY_VSCODE_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  load();
  // The host's console prints its arguments side by side: the reporter's "%s (%dms)" needs formatting here.
  const log = console.log;
  const base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  const reporterLog = base.consoleLog;
  base.consoleLog = (...args: unknown[]) => log(format(...args));
  return new Promise((resolve, reject) => {
    let passed = 0;
    let failed = 0;
    const failures: string[] = [];
    const runner = mocha.run(() => {
      base.consoleLog = reporterLog;
      for (const failure of failures) console.log(`vscode-suite failed: ${failure}`);
      console.log(`vscode-suite: ${passed} passed, ${failed} failed`);
      failed ? reject(new Error(`${failed} tests failed`)) : resolve();
    });
    runner.on('pass', () => passed++);
    runner.on('fail', (test, error) => {
      failed++;
      failures.push(`${test.fullTitle()} — ${String(error?.message ?? error).split('\n')[0].slice(0, 300)}`);
    });
  });
}
