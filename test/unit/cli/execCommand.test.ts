/**
 * `tally exec "/name args"`: the task runs the command's text, expanded by the same code as the
 * chat's, with the files it names attached; against a fake OpenAI-compatible server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EXEC_EXIT, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { openStore } from '../../../src/node/store';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

const KEY = 'sk-exec-command-test';

describe('tally exec: a task that starts with /name runs the command', function () {
  this.timeout(60_000);
  let root: string;
  let work: string;
  let home: string;
  let storeFolder: string;
  let server: FakeOpenAIServer;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'tally-exec-command-'));
    work = join(root, 'work');
    home = join(root, 'home');
    storeFolder = join(root, 'store');
    mkdirSync(join(work, '.tally', 'commands'), { recursive: true });
    mkdirSync(join(home, '.tally', 'commands'), { recursive: true });
    writeFileSync(join(work, 'notes.txt'), 'the parser drops trailing commas\n');
    writeFileSync(join(work, '.tally', 'commands', 'review.md'), '---\ndescription: Review a file\n---\nReview $1 for $2. See @notes.txt');
    writeFileSync(join(home, '.tally', 'commands', 'greet.md'), 'Say hello to $ARGUMENTS.');
    writeFileSync(join(home, '.tally', 'commands', 'leak.md'), 'Read @../secret.txt');
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
  });
  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function run(task: string): Promise<{ code: number; stderr: string }> {
    let stderr = '';
    const args = parseExecArgs([task, '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--store', storeFolder, '--cd', work], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY, HOME: home }, stdout: () => undefined, stderr: (t) => (stderr += t) });
    return { code, stderr };
  }

  const userContents = () => ((server.requests[0].body as { messages: Array<{ role: string; content: unknown }> }).messages).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

  it('sends the workspace command\'s text with its arguments, its @file attached before it, and records the command on the message', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'done' }] });
    const result = await run('/review "src/parser.ts" "trailing commas"');
    assert.equal(result.code, EXEC_EXIT.done, result.stderr);
    const users = userContents();
    assert.equal(users.length, 2);
    assert.match(users[0], /\[Attached file notes.txt\]\nthe parser drops trailing commas/);
    assert.equal(users[1], 'Review src/parser.ts for trailing commas. See @notes.txt');
    const store = await openStore(storeFolder);
    try {
      const [session] = await store.listSessions();
      const messages = await store.loadTranscript(session.id);
      const user = messages.find((m) => m.kind === 'user')!;
      assert.equal(user.meta?.source, '/review from .tally/commands/review.md');
    } finally {
      await store.close();
    }
  });

  it('runs the user\'s own command from $HOME/.tally/commands', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'hi' }] });
    const result = await run('/greet the whole team');
    assert.equal(result.code, EXEC_EXIT.done, result.stderr);
    assert.deepEqual(userContents(), ['Say hello to the whole team.']);
  });

  it('a command that cannot run stops the run before anything is sent, saying why', async () => {
    for (const [task, reason] of [['/nope', /no command \/nope/], ['/leak', /outside the workspace/], ['/compact', /chat only/]] as const) {
      const result = await run(task);
      assert.equal(result.code, EXEC_EXIT.usage, task);
      assert.match(result.stderr, reason);
    }
    assert.equal(server.requests.length, 0);
  });
});
