// Builds the production bundles and packs them into tally-<version>.vsix, then prints the
// package's size and file listing. Exits non-zero if anything fails or the package is 2 MB or more (CI runs this).
import { execFileSync } from 'child_process';
import { readFileSync, statSync } from 'fs';
import { packVsix } from './pack-vsix.mjs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `tally-${version}.vsix`;
const run = (command, args) => execFileSync(command, args, { stdio: 'inherit' });

run(process.execPath, ['scripts/build.mjs', '--production']);
packVsix(out);
run('npx', ['vsce', 'ls', '--no-dependencies']);
const size = statSync(out).size;
console.log(`package: ${out} ${(size / 1024 / 1024).toFixed(2)} MB`);
// The package a user downloads stays under 2 MB: a change that grows it past says so here, not in a review.
const LIMIT = 2 * 1024 * 1024;
if (size >= LIMIT) {
  console.error(`package: ${size.toLocaleString('en-US')} bytes, over the ${LIMIT.toLocaleString('en-US')}-byte budget; see the listing above for what grew`);
  process.exit(1);
}
