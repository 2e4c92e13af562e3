/**
 * Stop hooks through `tally exec`, as Claude Code runs them: a real hook script that answers
 * {"decision":"block"} makes the turn go on with its reason, reads stop_hook_active on the next
 * stop, and a hook that never lets go is cut off after MAX_STOP_HOOK_CONTINUATIONS.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { MAX_STOP_HOOK_CONTINUATIONS, STOP_HOOK_CAP_NOTICE } from '../../../src/core/agent/stopHookTurns';
import { EXEC_EXIT, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import { FakeOpenAIServer } from '../../fakes/openaiServer';

const KEY = 'sk-exec-stop-hooks';

describe('tally exec: Stop hooks', function () {
  this.timeout(60_000);
  let root: string;
  let work: string;
  let server: FakeOpenAIServer;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'tally-exec-stop-'));
    work = join(root, 'work');
    mkdirSync(work);
    mkdirSync(join(root, 'home'));
    server = await new FakeOpenAIServer({ apiKey: KEY }).start();
  });
  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  function stopHook(text: string): string {
    writeFileSync(join(root, 'stop.js'), text);
    const file = join(root, 'hooks.json');
    writeFileSync(file, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `node '${join(root, 'stop.js')}'` }] }] } }));
    return file;
  }

  async function exec(extra: string[]) {
    let stdout = '';
    let stderr = '';
    const args = parseExecArgs(['fix the parser', '--provider', 'openai-compatible', '--model', 'local', '--base-url', server.url, '--sandbox', 'off', '--json', '--store', join(root, 'store'), '--cd', work, ...extra], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY, HOME: join(root, 'home') }, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, lines: stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>), stderr };
  }

  const lastUserText = (i: number) => {
    const messages = server.requests[i]!.body.messages as Array<{ role: string; content: unknown }>;
    return JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)!.content);
  };

  it('a hook answering {"decision":"block"} makes the turn go on with its reason; on the next stop it reads stop_hook_active and lets the turn end', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'I changed the parser.' }] }, { type: 'reply', parts: [{ text: 'The tests pass now.' }] });
    const log = join(root, 'stops.jsonl');
    const file = stopHook(
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const e=JSON.parse(s);require('fs').appendFileSync(${JSON.stringify(log)},JSON.stringify(e)+'\\n');` +
        `if(!e.stop_hook_active)console.log(JSON.stringify({decision:'block',reason:'Run the parser tests before you stop.'}))})`,
    );
    const run = await exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 2, 'the turn went on once');
    assert.match(lastUserText(1), /Stop hook feedback .*: Run the parser tests before you stop\./);
    const stops = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(stops.map((s) => [s.hook_event_name, s.stop_hook_active, s.last_assistant_message]), [
      ['Stop', false, 'I changed the parser.'],
      ['Stop', true, 'The tests pass now.'],
    ]);
  });

  it('exit 2 with standard error blocks the stop the same way', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'done' }] }, { type: 'reply', parts: [{ text: 'really done' }] });
    const file = stopHook(`let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{if(!JSON.parse(s).stop_hook_active){process.stderr.write('lint is failing');process.exit(2)}})`);
    const run = await exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 2);
    assert.match(lastUserText(1), /lint is failing/);
  });

  it(`a hook that always blocks is cut off after ${MAX_STOP_HOOK_CONTINUATIONS} continuations, and the turn says so`, async () => {
    for (let i = 0; i <= MAX_STOP_HOOK_CONTINUATIONS + 2; i++) server.enqueue({ type: 'reply', parts: [{ text: `answer ${i}` }] });
    const file = stopHook(`process.stdin.resume();process.stdin.on('end',()=>console.log(JSON.stringify({decision:'block',reason:'not yet'})))`);
    const run = await exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 1 + MAX_STOP_HOOK_CONTINUATIONS);
    assert.ok(run.lines.some((l) => l.type === 'notice' && l.message === STOP_HOOK_CAP_NOTICE), JSON.stringify(run.lines.filter((l) => l.type === 'notice')));
  });

  it('"continue": false ends the turn even with a block', async () => {
    server.enqueue({ type: 'reply', parts: [{ text: 'done' }] }, { type: 'reply', parts: [{ text: 'never sent' }] });
    const file = stopHook(`process.stdin.resume();process.stdin.on('end',()=>console.log(JSON.stringify({continue:false,stopReason:'enough',decision:'block',reason:'go on'})))`);
    const run = await exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(server.requests.length, 1);
  });
});
