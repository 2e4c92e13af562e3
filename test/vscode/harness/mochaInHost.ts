import Mocha from 'mocha';

/**
 * Runs bundled test files inside the extension host: `load` requires them after mocha's globals
 * exist. Prints `vscode-suite: N passed, M failed`, which the harness reads from the host's log.
 */
export function runMochaInHost(load: () => void): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  load();
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      console.log(`vscode-suite: ${mocha.suite.total() - failures} passed, ${failures} failed`);
      failures ? reject(new Error(`${failures} tests failed`)) : resolve();
    });
  });
}
