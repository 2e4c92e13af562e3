/** Tally's own short programs (the sandbox's probe; git) run to their end through the spawner, within their limits. */
import assert from 'node:assert/strict';
import { tmpdir } from 'os';
import { stopSpawner, useSpawner } from '../../../../src/node/spawner/processStarts';
import { runToEnd } from '../../../../src/node/spawner/runToEnd';
import { spawnerFromSource } from '../../../support/spawnerFromSource';

describe('a program run to its end through the spawner (real processes)', function () {
  this.timeout(30_000);
  before(function () {
    if (process.platform === 'win32') this.skip();
  });
  beforeEach(() => useSpawner(spawnerFromSource()));
  afterEach(() => stopSpawner());

  const sh = (command: string) => ({ file: '/bin/sh', args: ['-c', command], cwd: tmpdir(), env: process.env });

  it('gives its output, error output and exit code', async () => {
    const ran = await runToEnd(sh('echo out; echo err >&2; exit 3'), { timeoutMs: 20_000 });
    assert.deepEqual(ran, { stdout: 'out\n', stderr: 'err\n', end: { code: 3, signal: null }, timedOut: false, tooLong: false });
  });

  it('kills a program past its time limit, and one whose output passes the limit', async () => {
    const slow = await runToEnd(sh('echo begun; exec sleep 300'), { timeoutMs: 200 });
    assert.equal(slow.timedOut, true);
    assert.equal(slow.end.signal, 'SIGKILL');
    const long = await runToEnd(sh('yes'), { timeoutMs: 20_000, maxBytes: 100_000 });
    assert.equal(long.tooLong, true);
    assert.ok(long.stdout.length <= 100_000);
    assert.equal(long.end.signal, 'SIGKILL');
  });

  it('says why a program could not start', async () => {
    const ran = await runToEnd({ file: '/no/such/program', args: [], cwd: tmpdir(), env: process.env }, { timeoutMs: 20_000 });
    assert.match(ran.end.error ?? '', /ENOENT/);
  });
});
