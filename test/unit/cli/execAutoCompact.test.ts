/** `tally exec --no-auto-compact` end to end: a fake OpenAI-compatible server on 127.0.0.1, a real folder and store. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EXEC_EXIT, EXEC_USAGE, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { openStore } from '../../../src/node/store';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

const KEY = 'sk-exec-auto';
/** A task of about 33,000 tokens: past the hard block of a 40,000-token window (less its 8,192-token reply reserve). */
const LONG_TASK = `Explain these log lines: ${'alpha beta gamma delta '.repeat(8_300)}`;

describe('tally exec --no-auto-compact', function () {
  this.timeout(120_000);
  let work: string;
  let store: string;
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'tally-auto-work-'));
    store = mkdtempSync(join(tmpdir(), 'tally-auto-store-'));
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
  });
  afterEach(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(store, { recursive: true, force: true });
  });

  async function exec(task: string, extra: string[]) {
    let stdout = '';
    let stderr = '';
    const args = parseExecArgs([task, '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--window', '40000', '--store', store, '--cd', work, ...extra], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr, lines: extra.includes('--json') ? stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [] };
  }

  it('at the hard block ends with exit status 7 and a clear message, compacting nothing and sending nothing', async () => {
    const run = await exec(LONG_TASK, ['--no-auto-compact', '--json']);
    assert.equal(run.code, EXEC_EXIT.compactionNeeded, run.stderr);
    assert.equal(server.requests.length, 0, 'nothing was sent');
    assert.equal(run.lines.some((l) => l.type === 'compaction'), false, 'nothing was compacted');
    const notice = run.lines.find((l) => l.type === 'notice');
    assert.match(notice?.message ?? '', /automatic compaction is off/);
    const end = run.lines.at(-1)!;
    assert.deepEqual([end.type, end.stopReason, end.exitCode], ['end', 'held', 7]);
    const opened = await openStore(store);
    try {
      assert.deepEqual(await opened.listCompactionEvents(end.session), []);
      assert.equal((await opened.loadTranscript(end.session)).filter((m) => m.role === 'user').length, 1, 'the task is kept in the session');
    } finally {
      await opened.close();
    }
  });

  it('plain output ends by saying why and how to go on', async () => {
    const run = await exec(LONG_TASK, ['--no-auto-compact']);
    assert.equal(run.code, 7);
    assert.match(run.stderr, /\[held\] session \S+ · the context reached the hard block and --no-auto-compact kept Tally from compacting it/);
  });

  it('without the flag the same run compacts by itself', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
    const run = await exec(LONG_TASK, ['--json']);
    assert.ok(run.lines.some((l) => l.type === 'compaction'), 'Tally compacted by itself');
    assert.notEqual(run.code, EXEC_EXIT.compactionNeeded);
  });

  it('a short task runs as usual with the flag; the flag takes no value and is documented', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'done' }] });
    const run = await exec('say done', ['--no-auto-compact']);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.throws(() => parseExecArgs(['t', '--provider', 'openai', '--model', 'm', '--no-auto-compact=yes'], work), /--no-auto-compact takes no value/);
    assert.match(EXEC_USAGE, /--no-auto-compact/);
    assert.match(EXEC_USAGE, /7 context at the hard block with --no-auto-compact/);
  });
});
