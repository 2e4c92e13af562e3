// Mocha's spec reporter, plus the run's totals written to $TALLY_TEST_COUNTS for scripts/test-all.mjs.
const Mocha = require('mocha');
const fs = require('fs');

class CountingSpec extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.TALLY_TEST_COUNTS;
      if (!file) return;
      const { passes, failures, pending } = this.stats;
      fs.writeFileSync(file, JSON.stringify({ passed: passes, failed: failures, skipped: pending }));
    });
  }
}
module.exports = CountingSpec;
