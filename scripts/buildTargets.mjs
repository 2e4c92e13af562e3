// The bundles `node scripts/build.mjs` makes (the extension host code, the CLI, the workers, the webviews) and their shared esbuild options.
// The MCP SDK's client imports its Ajv validator even when given another; leave Ajv out of the bundles.
const noJsonSchemaCompiler = {
  name: 'no-json-schema-compiler',
  setup(b) {
    b.onResolve({ filter: /[\\/]validation[\\/]ajv-provider\.js$/ }, () => ({ path: new URL('./build/noJsonSchemaCompiler.cjs', import.meta.url).pathname }));
  },
};

/** What every bundle shares; `production` minifies and leaves out source maps. */
export const common = (production) => ({ plugins: [noJsonSchemaCompiler], bundle: true, sourcemap: !production, minify: production, legalComments: production ? 'none' : 'inline', logLevel: 'warning' });

// sql.js's WebAssembly is copied beside the bundles; the path a run from source resolves stays a plain require.resolve.
const SQL_WASM = 'sql.js/dist/sql-wasm.wasm';

export const buildTargets = [
  { entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', SQL_WASM] },
  // Store work off the extension host's thread, one bundle for both tasks: a transcript's import and replay, and
  // compiling sql.js's WebAssembly at activation (src/node/storeWorker.ts).
  { entryPoints: ['src/node/storeWorker.ts'], outfile: 'dist/storeWorker.js', platform: 'node', format: 'cjs', target: 'node20', external: [SQL_WASM] },
  // Fetched HTML made readable (Readability, linkedom, turndown) off the host's thread; loaded at the first page (src/node/web/readableInWorker.ts).
  // Parsers and serializers it never uses stay out: turndown's HTML-string parser (it is given DOM nodes), linkedom's style-sheet parser, dom-serializer.
  { entryPoints: ['src/node/web/readableWorker.ts'], outfile: 'dist/readableWorker.js', platform: 'node', format: 'cjs', target: 'node20', alias: { '@mixmark-io/domino': './scripts/stubs/noHtmlStringParser.cjs', 'cssomnom/parse': './scripts/stubs/noStyleSheetParser.cjs', 'dom-serializer': './scripts/stubs/noDomSerializer.cjs' } },
  // Starts hooks' and commands' processes for the extension host, whose own forks cost ~100 ms of its thread each (src/node/spawner/spawnerMain.ts).
  { entryPoints: ['src/node/spawner/spawnerMain.ts'], outfile: 'dist/spawner.js', platform: 'node', format: 'cjs', target: 'node20' },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', format: 'cjs', target: 'node20', external: [SQL_WASM], banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['webview/inspector/main.ts'], outfile: 'dist/webview/inspector.js', platform: 'browser', format: 'iife', target: 'es2022' },
  { entryPoints: ['webview/chat/main.ts'], outfile: 'dist/webview/chat.js', platform: 'browser', format: 'iife', target: 'es2022', alias: { entities: './scripts/stubs/entitiesDecodeOnly.mjs' } },
];

