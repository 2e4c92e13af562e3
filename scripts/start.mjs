// `npm start`: builds Tally, then opens it in a real VS Code (code-server on 127.0.0.1, installed
// on first use) with a demo workspace, and prints the URL.
import { spawnSync } from 'child_process';

const run = (command, args) => {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

run('node', ['scripts/build.mjs']);
run('bash', ['scripts/vscode/run-product.sh']);
