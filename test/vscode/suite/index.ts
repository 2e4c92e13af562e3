import Mocha from 'mocha';

/** Entry point VS Code calls in the extension host: runs the bundled tests and reports counts. */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  require('./extension.test');
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      const stats = mocha.suite.total();
      console.log(`vscode-suite: ${stats - failures} passed, ${failures} failed`);
      failures ? reject(new Error(`${failures} tests failed`)) : resolve();
    });
  });
}
