/** A workspace's hook runs in the session's command sandbox (real bubblewrap): it reads its event, and writes only in the workspace. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'fs';
import { join } from 'path';
import { NodeHookProcess } from '../../../../src/node/hooks/nodeHookProcess';
import { CommandSandbox } from '../../../../src/node/sandbox/commandSandbox';
import { bubblewrapOrSkip } from '../../../support/bubblewrap';

describe('hooks in the command sandbox (real bubblewrap)', function () {
  this.timeout(30_000);
  let root: string;
  before(function () {
    bubblewrapOrSkip(this);
  });
  beforeEach(() => {
    // Under /var/tmp: the sandbox's /tmp is private.
    root = realpathSync(mkdtempSync('/var/tmp/tally-hook-sandbox-'));
    mkdirSync(join(root, 'work'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a sandboxed hook gets its event on stdin and cannot write outside the workspace; an unsandboxed one can', async () => {
    const work = join(root, 'work');
    const sandbox = new CommandSandbox(() => ({ enabled: true, home: join(root, 'home'), extraHidden: [], storage: [] }));
    const hooks = new NodeHookProcess({ sandbox: { sandbox, folders: () => [work] } });
    const command = `cat > event.json; echo out > '${join(root, 'outside')}'; echo done`;
    const sandboxed = await hooks.run({ command, input: '{"hook_event_name":"Stop"}', cwd: work, timeoutMs: 20_000, sandboxed: true });
    assert.equal(readFileSync(join(work, 'event.json'), 'utf8'), '{"hook_event_name":"Stop"}');
    assert.equal(existsSync(join(root, 'outside')), false);
    assert.match(sandboxed.stderr, /Read-only file system|Permission denied/);
    const free = await hooks.run({ command, input: '{}', cwd: work, timeoutMs: 20_000, sandboxed: false });
    assert.equal(free.exitCode, 0, free.stderr);
    assert.equal(existsSync(join(root, 'outside')), true);
  });
});
