// Bundles the extension host code, the CLI and the webviews with esbuild.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { brotliCompressSync, constants } from 'zlib';
import { createRequire } from 'module';

const require = createRequire(import.meta.url);

import { buildTargets, common as commonOptions } from './buildTargets.mjs';

const production = process.argv.includes('--production');
const common = commonOptions(production);
const targets = buildTargets;

for (const target of targets) {
  if (!existsSync(target.entryPoints[0])) continue;
  await build({ ...common, ...target });
}
// sql.js's WebAssembly and the demo run ship brotli-compressed (70 KB smaller than the zip makes
// them; src/node/store/sql/sqlRuntime.ts and src/commands/transcriptCommands.ts read either form).
// A development build also keeps the plain WebAssembly beside the bundle, which is read first.
mkdirSync('dist', { recursive: true });
const brotli = (path) => brotliCompressSync(readFileSync(path), { params: { [constants.BROTLI_PARAM_QUALITY]: production ? 11 : 5, [constants.BROTLI_PARAM_LGWIN]: 24 } });
const wasm = require.resolve('sql.js/dist/sql-wasm.wasm');
writeFileSync('dist/sql-wasm.wasm.br', brotli(wasm));
if (production) rmSync('dist/sql-wasm.wasm', { force: true });
else copyFileSync(wasm, 'dist/sql-wasm.wasm');
writeFileSync('dist/demo-run.traj.json.br', brotli('media/demo/demo-run.traj.json'));
// The worker bundles ship brotli-compressed too, and are run from that (src/node/bundledWorker.ts):
// a production build keeps no plain copy, which would be run first.
for (const worker of ['dist/storeWorker.js', 'dist/readableWorker.js']) {
  if (!production) continue;
  writeFileSync(`${worker}.br`, brotli(worker));
  rmSync(worker);
}
// The tokenizer's ranks ship once, as binary files beside the bundles (src/node/accounting/rankFile.ts).
require('../test/register.cjs');
require('../src/node/accounting/rankFile.ts').writeRankFiles('dist/ranks', production ? 'best' : 'fast');
// A production build must not leave an earlier development build's source maps behind.
if (production) for (const file of readdirSync('dist', { recursive: true })) if (String(file).endsWith('.map')) rmSync(`dist/${file}`);
console.log('build: done');
