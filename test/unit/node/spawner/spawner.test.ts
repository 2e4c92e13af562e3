/** The spawner, a real Node process started from source, starting real processes for its caller. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { Launch, ProcessEnd, RunningProcess } from '../../../../src/node/spawner/launch';
import { SpawnerClient } from '../../../../src/node/spawner/spawnerClient';
import { processGone, spawnerFromSource, waitGone } from '../../../support/spawnerFromSource';

interface Ran {
  stdout: Buffer;
  stderr: Buffer;
  end: ProcessEnd;
}

/** Starts `launch`; `onStdout` sees the output so far as it comes (to act mid-run). */
function start(client: SpawnerClient, launch: Launch, onStdout?: (soFar: string, process: RunningProcess) => void): Promise<Ran> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const running: RunningProcess = client.launch(launch, {
      stdout: (chunk) => {
        out.push(chunk);
        onStdout?.(Buffer.concat(out).toString(), running);
      },
      stderr: (chunk) => err.push(chunk),
      end: (end) => resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), end }),
    });
  });
}

const sh = (command: string, more: Partial<Launch> = {}): Launch => ({ file: '/bin/sh', args: ['-c', command], cwd: tmpdir(), env: process.env, ...more });

describe('the spawner (a real process)', function () {
  this.timeout(30_000);
  let client: SpawnerClient;
  let dir: string;
  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(() => {
    client = new SpawnerClient(spawnerFromSource());
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'tally-spawner-')));
  });
  afterEach(() => {
    client.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the process itself (not the host), with the given input, folder and environment, and relays output, exit code and signal', async () => {
    const ran = await start(client, sh('echo "parent=$PPID dir=$(pwd) var=$ASKED"; cat; echo oops >&2; exit 3', { cwd: dir, env: { ...process.env, ASKED: 'yes' }, input: 'from stdin\n' }));
    assert.equal(ran.stdout.toString(), `parent=${client.pid} dir=${dir} var=yes\nfrom stdin\n`);
    assert.notEqual(client.pid, process.pid);
    assert.equal(ran.stderr.toString(), 'oops\n');
    assert.deepEqual(ran.end, { code: 3, signal: null });
    const killed = await start(client, sh('kill -TERM $$'));
    assert.deepEqual(killed.end, { code: null, signal: 'SIGTERM' });
  });

  it('says why a process could not start (a missing folder, a missing program)', async () => {
    const noFolder = await start(client, sh('echo hi', { cwd: join(dir, 'missing') }));
    assert.match(noFolder.end.error ?? '', /ENOENT/);
    const noProgram = await start(client, { file: join(dir, 'no-such-program'), args: [], cwd: dir, env: process.env });
    assert.match(noProgram.end.error ?? '', /ENOENT/);
    assert.equal((await start(client, sh('echo still here'))).stdout.toString(), 'still here\n');
  });

  it('relays large binary output byte for byte', async () => {
    const bytes = randomBytes(12 * 1024 * 1024 + 17);
    writeFileSync(join(dir, 'blob'), bytes);
    const ran = await start(client, sh('cat blob; cat blob >&2', { cwd: dir }));
    assert.equal(createHash('sha256').update(ran.stdout).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
    assert.equal(ran.stderr.length, bytes.length);
    assert.equal(ran.end.code, 0);
  });

  it('runs many processes at once, each with its own output and exit code', async () => {
    const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => start(client, sh(`printf 'run ${i}\\n%.0s' $(seq ${i + 1}); exit ${i % 7}`))));
    runs.forEach((ran, i) => {
      assert.equal(ran.stdout.toString(), `run ${i}\n`.repeat(i + 1));
      assert.equal(ran.end.code, i % 7);
    });
  });

  it('kills the whole process group when asked, a background child included', async () => {
    let pids: number[] = [];
    const ran = await start(client, sh('sleep 300 & echo "$$ $!"; wait'), (soFar, running) => {
      if (!soFar.includes('\n') || pids.length) return;
      pids = soFar.trim().split(' ').map(Number);
      running.kill();
    });
    assert.equal(ran.end.signal, 'SIGKILL');
    assert.equal(pids.length, 2);
    assert.ok(pids.every(processGone), `still running: ${pids.filter((p) => !processGone(p))}`);
  });

  it('a kill asked before the spawner is ready still ends the process', async () => {
    const ended = new Promise<ProcessEnd>((resolve) => client.launch(sh('exec sleep 300'), { stdout: () => undefined, stderr: () => undefined, end: resolve }).kill());
    assert.deepEqual(await ended, { code: null, signal: 'SIGKILL' });
  });

  it('when the spawner dies mid-command, that command ends with a clear error and is killed; the next one starts a new spawner', async () => {
    let commandPid = 0;
    const firstSpawner = (await client.warmUp())!.pid!;
    const ran = await start(client, sh('echo $$; exec sleep 300'), (soFar) => {
      if (commandPid || !soFar.includes('\n')) return;
      commandPid = Number(soFar.trim());
      process.kill(firstSpawner, 'SIGKILL');
    });
    assert.equal(ran.end.code, null);
    assert.match(ran.end.error ?? '', /process starter was killed \(SIGKILL\) while this process ran, so it was stopped/);
    await waitGone([commandPid]);
    const next = await start(client, sh('echo $PPID'));
    assert.equal(next.stdout.toString(), `${client.pid}\n`);
    assert.notEqual(client.pid, firstSpawner);
  });

  it('when the spawner cannot start, processes start from the host instead', async () => {
    const broken = new SpawnerClient({ file: join(dir, 'no-such-node'), args: [] });
    try {
      const ran = await start(broken, sh('echo $PPID'));
      assert.equal(ran.stdout.toString(), `${process.pid}\n`);
      assert.equal(ran.end.code, 0);
      const crashing = new SpawnerClient({ file: process.execPath, args: ['-e', 'process.exit(5)'] });
      const again = await start(crashing, sh('echo fine'));
      assert.equal(again.stdout.toString(), 'fine\n');
      crashing.dispose();
    } finally {
      broken.dispose();
    }
  });
});
