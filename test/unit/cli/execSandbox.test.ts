/**
 * `tally exec` runs the agent's commands in the sandbox unless told `--sandbox off` (which it warns
 * about), and never runs one again outside it: nobody is there to ask.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'fs';
import { join } from 'path';
import { runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { bubblewrapOrSkip } from '../../support/bubblewrap';

const KEY = 'sk-exec-sandbox';

describe('tally exec: commands in the sandbox (real bubblewrap)', function () {
  this.timeout(60_000);
  let root: string;
  let work: string;
  let target: string;
  let server: FakeOpenAIServer;

  before(function () {
    bubblewrapOrSkip(this);
  });
  beforeEach(async () => {
    // Under /var/tmp: the sandbox's /tmp is private, so a target under /tmp would be out of sight anyway.
    root = realpathSync(mkdtempSync('/var/tmp/tally-exec-sandbox-'));
    work = join(root, 'work');
    mkdirSync(work);
    mkdirSync(join(root, 'outside'));
    target = join(root, 'outside', 'written');
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
    server.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command: `echo inside > here.txt; echo x > '${target}'` }) } }] }, { type: 'reply', parts: [{ text: 'done' }] });
  });
  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function exec(extra: string[]) {
    let stdout = '';
    let stderr = '';
    const args = parseExecArgs(['write outside', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--allow', 'command', '--json', '--store', join(root, 'store'), '--cd', work, ...extra], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY, HOME: join(root, 'home') }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, lines: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>), stderr };
  }

  it('runs commands sandboxed by default: the write outside is refused, said in the result, and not run again outside', async () => {
    const run = await exec([]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(work, 'here.txt'), 'utf8'), 'inside\n');
    assert.equal(existsSync(target), false);
    const result = run.lines.find((l) => l.type === 'tool_result')!;
    assert.match(result.output, /Read-only file system[\s\S]*It failed in the sandbox; the sandbox may have stopped it[\s\S]*The user chose not to run it outside the sandbox\./);
    assert.deepEqual(run.lines.filter((l) => l.type === 'approval').map((l) => l.decision), ['denied'], 'the one card (run outside) was refused');
    assert.equal(run.stderr, '', 'no warning: the sandbox is there');
  });

  it('--sandbox off runs them with full access, after a warning', async () => {
    const run = await exec(['--sandbox', 'off']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(target, 'utf8'), 'x\n');
    assert.match(run.stderr, /^tally: --sandbox off: the agent's commands run with your full access to files, secrets and the network\n$/);
  });

  it('refuses a --sandbox value it does not know', () => {
    assert.throws(() => parseExecArgs(['t', '--provider', 'openai', '--model', 'm', '--sandbox', 'maybe'], root), /--sandbox must be on or off/);
  });
});
