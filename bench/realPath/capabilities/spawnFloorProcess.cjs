// The floor of a hook's start: a small Node process (this one) starts `sh -c <command>` the way a
// hook is started (its own process group, the event on standard input) `count` times, one after
// another, and prints each start's wall time and its own CPU time (ms) as one JSON line.
const { spawn } = require('child_process');

const [command, input, count] = [process.argv[2], process.argv[3], Number(process.argv[4])];

function once() {
  const started = performance.now();
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', reject);
    child.on('close', () => {
      const used = process.cpuUsage(cpu);
      resolve({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
    });
  });
}

(async () => {
  const runs = [];
  for (let i = 0; i < count; i++) runs.push(await once());
  process.stdout.write(JSON.stringify(runs) + '\n');
})();
