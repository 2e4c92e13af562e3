// Measures how long `require('dist/extension.js')` takes with a stub `vscode` module: the median of
// several fresh processes. Run after a build: node scripts/require-time.cjs [runs]
const { execFileSync } = require('child_process');
const path = require('path');

const bundle = path.resolve(__dirname, '..', 'dist', 'extension.js');
const child = `
const Module = require('module');
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'vscode' ? new Proxy({}, { get: () => new Proxy(function () {}, { get: () => ({}) }) }) : load.call(this, request, ...rest);
};
const started = process.hrtime.bigint();
require(${JSON.stringify(bundle)});
process.stdout.write(String(Number(process.hrtime.bigint() - started) / 1e6));
`;
const runs = Number(process.argv[2] ?? 9);
const times = Array.from({ length: runs }, () => Number(execFileSync(process.execPath, ['-e', child], { encoding: 'utf8' }))).sort((a, b) => a - b);
console.log(`require dist/extension.js: median ${times[Math.floor(runs / 2)].toFixed(1)} ms over ${runs} runs (min ${times[0].toFixed(1)}, max ${times[runs - 1].toFixed(1)})`);
