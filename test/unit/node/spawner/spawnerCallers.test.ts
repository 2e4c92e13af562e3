/** run_command's and hooks' processes started through the spawner (a real process), and what is left when the host goes. */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'child_process';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { NodeHookProcess } from '../../../../src/node/hooks/nodeHookProcess';
import { stopSpawner, useSpawner } from '../../../../src/node/spawner/processStarts';
import type { SpawnerClient } from '../../../../src/node/spawner/spawnerClient';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { processGone, spawnerFromSource, waitGone } from '../../../support/spawnerFromSource';

describe('run_command and hooks through the spawner (real processes)', function () {
  this.timeout(30_000);
  let dir: string;
  let spawner: SpawnerClient;
  let workspace: NodeWorkspace;
  const exec = (command: string, more: { maxOutputBytes?: number; timeoutMs?: number; signal?: AbortSignal } = {}) =>
    workspace.exec(command, { cwd: dir, timeoutMs: more.timeoutMs ?? 20_000, maxOutputBytes: more.maxOutputBytes ?? 65_536, signal: more.signal ?? new AbortController().signal }).then((r) => ({ ...r, text: Buffer.from(r.output).toString() }));

  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'tally-spawner-callers-')));
    spawner = useSpawner(spawnerFromSource());
    workspace = new NodeWorkspace({ folders: [dir], trusted: true });
    await spawner.warmUp();
  });
  afterEach(() => {
    stopSpawner();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a command runs in the spawner with its output capped head and tail as before, its exit code and time limit', async () => {
    const ran = await exec('echo "parent $PPID"; seq 1 100000; exit 4', { maxOutputBytes: 1000 });
    assert.match(ran.text, new RegExp(`^parent ${spawner.pid}\\n1\\n2\\n`));
    assert.match(ran.text, /\[… \d+ bytes of output dropped while the command ran …\]\n/);
    assert.match(ran.text, /99999\n100000\n\n\[exit code 4\]$/);
    assert.equal(ran.failed, true);
    const slow = await exec('echo begun; sleep 300', { timeoutMs: 300 });
    assert.match(slow.text, /^begun\n\n\[timed out after 0.3 s\]$/);
  });

  it('a cancelled command ends at once, its background children with it', async () => {
    const stop = new AbortController();
    // The command says it is running through a named pipe the test reads.
    execFileSync('mkfifo', [join(dir, 'ready')]);
    const ran = exec('sleep 300 & echo $! > ready; wait', { signal: stop.signal });
    const child = Number(await new Promise<string>((resolve) => createReadStream(join(dir, 'ready'), 'utf8').on('data', (text) => resolve(String(text)))));
    stop.abort();
    assert.match((await ran).text, /\[cancelled\]$/);
    await waitGone([child]);
  });

  it('when the spawner is killed mid-command, run_command says so and the next command runs', async () => {
    const first = spawner.pid!;
    execFileSync('mkfifo', [join(dir, 'started')]);
    const ran = exec('echo $$ > started; exec sleep 300');
    const commandPid = Number(await new Promise<string>((resolve) => createReadStream(join(dir, 'started'), 'utf8').on('data', (text) => resolve(String(text)))));
    process.kill(first, 'SIGKILL');
    const result = await ran;
    assert.match(result.text, /\[ended without an exit code: Tally's process starter was killed \(SIGKILL\) while this process ran, so it was stopped\]$/);
    assert.equal(result.failed, true);
    await waitGone([first, commandPid]);
    const next = await exec('echo "parent $PPID"');
    assert.match(next.text, new RegExp(`^parent ${spawner.pid}\\n\\n\\[exit code 0\\]$`));
    assert.notEqual(spawner.pid, first);
  });

  it('a hook gets its event on stdin through the spawner, and its streams are capped as before', async () => {
    const hooks = new NodeHookProcess();
    const exit = await hooks.run({ command: 'echo "parent $PPID hook $TALLY_HOOK"; cat; head -c 100000 /dev/zero | tr "\\0" x >&2; exit 2', input: '{"event":"Stop"}', cwd: dir, timeoutMs: 20_000, sandboxed: false });
    assert.equal(exit.stdout, `parent ${spawner.pid} hook 1\n{"event":"Stop"}`);
    assert.equal(exit.stderr, 'x'.repeat(64 * 1024));
    assert.equal(exit.exitCode, 2);
    const late = await hooks.run({ command: 'sleep 300', input: '', cwd: dir, timeoutMs: 200, sandboxed: false });
    assert.deepEqual(late, { stdout: '', stderr: '', timedOut: true });
  });

  it('when the host exits, the spawner and the commands it runs go too (no orphan)', async () => {
    const script = join(dir, 'host.ts');
    writeFileSync(
      script,
      [
        `import { useSpawner, launchProcess } from ${JSON.stringify(join(__dirname, '../../../../src/node/spawner/processStarts'))};`,
        `import { spawnerFromSource } from ${JSON.stringify(join(__dirname, '../../../support/spawnerFromSource'))};`,
        `const spawner = useSpawner(spawnerFromSource());`,
        `launchProcess({ file: '/bin/sh', args: ['-c', 'sleep 300 & sleep 300 & echo $$; wait'], cwd: ${JSON.stringify(dir)}, env: process.env }, {`,
        `  stdout: (c) => process.stdout.write(spawner.pid + ' ' + c), stderr: () => undefined, end: () => undefined });`,
      ].join('\n'),
    );
    const host = spawn(process.execPath, ['-r', join(__dirname, '../../../register.cjs'), script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => {
      let out = '';
      host.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out);
      });
    });
    const [spawnerPid, commandPid] = line.trim().split(' ').map(Number);
    assert.ok(!processGone(spawnerPid) && !processGone(commandPid));
    const groupPids = (): number[] =>
      readdirSync('/proc')
        .filter((name: string) => /^\d+$/.test(name))
        .filter((name: string) => {
          try {
            const stat: string = readFileSync(`/proc/${name}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === commandPid;
          } catch {
            return false;
          }
        })
        .map(Number);
    const group = groupPids();
    assert.equal(group.length, 3, 'the shell and its two background sleeps');
    host.kill('SIGKILL');
    await waitGone([spawnerPid, ...group]);
  });
});
