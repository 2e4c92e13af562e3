// `npm start`: builds Tally, then opens it in a real VS Code when the launcher is installed
// (scripts/vscode/run-product.sh), otherwise replays the bundled demo run through the context
// manager and writes the inspector's HTML report.
import { spawnSync } from 'child_process';
import { existsSync } from 'fs';
import { resolve } from 'path';

const run = (command, args) => {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

run('node', ['scripts/build.mjs']);
if (existsSync('scripts/vscode/run-product.sh')) {
  run('bash', ['scripts/vscode/run-product.sh']);
} else {
  const out = resolve('tally-demo-report.html');
  run('node', ['dist/cli.js', 'inspect', 'media/demo/demo-run.traj.json', '--window', '32000', '--out', out]);
  console.log(`\nOpen ${out} in a browser: the demo run (a recorded mini-swe-agent session, see media/demo/ATTRIBUTION.md)`);
  console.log('replayed through Tally\'s context manager in a 32K window, request by request.');
  console.log('To use the extension itself, open this folder in VS Code and press F5 (Run Extension).');
}
