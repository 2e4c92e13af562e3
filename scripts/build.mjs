// Bundles the extension host code, the CLI and the webviews with esbuild.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'fs';
import { createRequire } from 'module';

const require = createRequire(import.meta.url);

const production = process.argv.includes('--production');
const common = { bundle: true, sourcemap: !production, minify: production, legalComments: production ? 'none' : 'inline', logLevel: 'warning' };

const targets = [
  { entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] },
  // Transcript import + replay run in a worker thread so the extension host stays responsive.
  { entryPoints: ['src/node/transcripts/replayWorker.ts'], outfile: 'dist/replayWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // Compiles sql.js's WebAssembly off the extension host's thread at activation (src/node/store/sql/sqlWarmUp.ts).
  { entryPoints: ['src/node/store/sql/sqlWarmWorker.ts'], outfile: 'dist/sqlWarmWorker.js', platform: 'node', format: 'cjs', target: 'node20' },
  // Fetched HTML made readable (Readability, linkedom, turndown) off the host's thread; loaded at the first page (src/node/web/readableInWorker.ts).
  { entryPoints: ['src/node/web/readableWorker.ts'], outfile: 'dist/readableWorker.js', platform: 'node', format: 'cjs', target: 'node20', alias: { '@mixmark-io/domino': './scripts/stubs/noHtmlStringParser.cjs', 'cssomnom/parse': './scripts/stubs/noStyleSheetParser.cjs' } },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['webview/inspector/main.ts'], outfile: 'dist/webview/inspector.js', platform: 'browser', format: 'iife', target: 'es2022' },
  { entryPoints: ['webview/chat/main.ts'], outfile: 'dist/webview/chat.js', platform: 'browser', format: 'iife', target: 'es2022' },
];

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
