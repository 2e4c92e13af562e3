// Lets mocha load TypeScript directly: esbuild strips types, `npm run typecheck` checks them.
const { transformSync } = require('esbuild');
const fs = require('fs');
require.extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    loader: 'ts',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: filename,
  });
  module._compile(code, filename);
};

// Token counters in tests and benchmarks read their ranks the way the extension does.
require('../src/node/usePlatform.ts');
