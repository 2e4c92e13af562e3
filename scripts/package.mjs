// Builds the production bundles and packs them into tally-<version>.vsix, then prints the
// package's size and file listing. Exits non-zero if anything fails (CI runs this).
import { execFileSync } from 'child_process';
import { readFileSync, statSync } from 'fs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `tally-${version}.vsix`;
const run = (command, args) => execFileSync(command, args, { stdio: 'inherit' });

run(process.execPath, ['scripts/build.mjs', '--production']);
// The bundles carry every dependency, so node_modules stays out. The README's relative links stay
// relative: its images are in the package, so the details page of the installed extension shows them.
run('npx', ['vsce', 'package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out]);
run('npx', ['vsce', 'ls', '--no-dependencies']);
console.log(`package: ${out} ${(statSync(out).size / 1024 / 1024).toFixed(2)} MB`);
