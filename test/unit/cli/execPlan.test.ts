/** `tally exec --plan` end to end: a fake OpenAI-compatible server on 127.0.0.1, a real folder and store. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EXEC_EXIT, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

const KEY = 'sk-exec-plan';
const toolNames = (body: any): string[] => ((body.tools ?? []) as any[]).map((t) => t.function?.name ?? t.name);

describe('tally exec --plan', function () {
  this.timeout(60_000);
  let work: string;
  let store: string;
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'tally-plan-work-'));
    store = mkdtempSync(join(tmpdir(), 'tally-plan-store-'));
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
  });
  afterEach(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
    rmSync(store, { recursive: true, force: true });
  });

  async function exec(extra: string[]) {
    let stdout = '';
    let stderr = '';
    const args = parseExecArgs(['plan the fix', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--allow', 'edit,command', '--store', store, '--cd', work, ...extra], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  }

  it('reads, offers no edit or command even with --allow, changes nothing and prints the plan', async () => {
    writeFileSync(join(work, 'parser.py'), 'def parse(doc):\n    return doc[0]\n');
    server.enqueue(
      { type: 'reply', parts: [{ toolCall: { name: 'read_file', arguments: JSON.stringify({ path: 'parser.py' }) } }, { toolCall: { name: 'write_file', arguments: JSON.stringify({ path: 'out.txt', content: 'x' }) } }] },
      { type: 'reply', parts: [{ text: 'Plan:\n1. Guard parse() against an empty document.\n2. Add a test.' }] },
    );
    const run = await exec(['--plan']);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    const offered = toolNames(server.requests[0].body);
    assert.ok(offered.includes('read_file') && offered.includes('update_todos'));
    for (const name of ['write_file', 'edit_file', 'run_command']) assert.ok(!offered.includes(name), `${name} is withheld`);
    assert.match(JSON.stringify(server.requests[0].body.messages), /You are in plan mode/);
    assert.equal(existsSync(join(work, 'out.txt')), false, 'the write the model tried did not happen');
    assert.match(run.stdout, /1\. Guard parse\(\) against an empty document\./);
    assert.match(run.stderr, /plan mode: nothing was changed/);
  });

  it('without --plan the same run offers edits and commands', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
    await exec([]);
    for (const name of ['write_file', 'edit_file', 'run_command']) assert.ok(toolNames(server.requests[0].body).includes(name));
  });

  it('--plan takes no value', () => {
    assert.throws(() => parseExecArgs(['t', '--provider', 'openai', '--model', 'm', '--plan=yes'], work), /--plan takes no value/);
  });
});
