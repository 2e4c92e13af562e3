// Mocha's spec reporter, plus the run's totals and the failed tests' titles written to
// $TALLY_TEST_COUNTS for scripts/test-all.mjs, which repeats the titles at the end of its output.
const Mocha = require('mocha');
const fs = require('fs');

class CountingSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failedTests = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, error) => {
      failedTests.push(`${test.fullTitle()} — ${String(error?.message ?? error).split('\n')[0].slice(0, 300)}`);
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.TALLY_TEST_COUNTS;
      if (!file) return;
      const { passes, failures, pending } = this.stats;
      fs.writeFileSync(file, JSON.stringify({ passed: passes, failed: failures, skipped: pending, failures: failedTests }));
    });
  }
}
module.exports = CountingSpec;
