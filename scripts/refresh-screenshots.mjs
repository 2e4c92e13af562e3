// Refreshes the documentation's pictures (docs/screenshots): runs the real-VS-Code UI tests with
// their screenshots pointed there. `npm test` saves them to the ignored test-artifacts/ instead.
import { spawnSync } from 'child_process';

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, ['scripts/vscode/run-tests.mjs'], { stdio: 'inherit', env: { ...process.env, TALLY_SCREENSHOTS_DIR: 'docs/screenshots' } });
if (run.status !== 0) process.exit(run.status ?? 1);
// The README's picture in the package follows the refreshed screenshot.
const readme = spawnSync(process.execPath, ['scripts/readme-images.mjs'], { stdio: 'inherit' });
process.exit(readme.status ?? 1);
