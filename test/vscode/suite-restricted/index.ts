import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 120_000, reporter: 'spec' });
  mocha.suite.emit('pre-require', globalThis, 'bundle', mocha);
  require('./restricted.test');
  return new Promise((resolve, reject) => {
    mocha.run((failures) => {
      console.log(`vscode-suite: ${mocha.suite.total() - failures} passed, ${failures} failed`);
      failures ? reject(new Error(`${failures} tests failed`)) : resolve();
    });
  });
}
