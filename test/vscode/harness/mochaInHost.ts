import Mocha from 'mocha';

/**
 * Runs bundled test files inside the extension host: `load` requires them after mocha's globals
 * exist. Prints `vscode-suite: N passed, M failed`, which the harness reads from the host's log.
 */
export function runMochaInHost(load: () => void): Promise<void> {
  // TALLY_VSCODE_GREP runs only the tests whose titles match (while working on a few; CI runs all).
  const grep = process.env.TALLY_VSCODE_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  load();
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      console.log(`vscode-suite: ${mocha.suite.total() - failures} passed, ${failures} failed`);
      failures ? reject(new Error(`${failures} tests failed`)) : resolve();
    });
  });
}
