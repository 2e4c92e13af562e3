// Builds the production bundles and packs them into tally-<version>.vsix, then prints the
// package's size and file listing. Exits non-zero if anything fails (CI runs this).
import { execFileSync } from 'child_process';
import { readFileSync, statSync } from 'fs';
import { packVsix } from './pack-vsix.mjs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const out = `tally-${version}.vsix`;
const run = (command, args) => execFileSync(command, args, { stdio: 'inherit' });

run(process.execPath, ['scripts/build.mjs', '--production']);
packVsix(out);
run('npx', ['vsce', 'ls', '--no-dependencies']);
console.log(`package: ${out} ${(statSync(out).size / 1024 / 1024).toFixed(2)} MB`);
