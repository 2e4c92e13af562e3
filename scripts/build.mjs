// Bundles the extension host code, the CLI and the webviews with esbuild.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'fs';
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
// sql.js loads its WebAssembly from beside the bundle.
mkdirSync('dist', { recursive: true });
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), 'dist/sql-wasm.wasm');
// The tokenizer's ranks ship once, as binary files beside the bundles (src/node/accounting/rankFile.ts).
require('../test/register.cjs');
require('../src/node/accounting/rankFile.ts').writeRankFiles('dist/ranks', production ? 'best' : 'fast');
// A production build must not leave an earlier development build's source maps behind.
if (production) for (const file of readdirSync('dist', { recursive: true })) if (String(file).endsWith('.map')) rmSync(`dist/${file}`);
console.log('build: done');
