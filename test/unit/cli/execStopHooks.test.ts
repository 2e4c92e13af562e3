/**
 * Stop hooks through `tally exec`, as Claude Code runs them: a real hook script that answers
 * {"decision":"block"} makes the turn go on with its reason, reads stop_hook_active on the next
 * stop, and a hook that never lets go is cut off after MAX_STOP_HOOK_CONTINUATIONS.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { MAX_STOP_HOOK_CONTINUATIONS, STOP_HOOK_CAP_NOTICE } from '../../../src/core/agent/stopHookTurns';
import { EXEC_EXIT } from '../../../src/cli/exec';
import { useHookRuns } from './execHookRuns';

describe('tally exec: Stop hooks', function () {
  this.timeout(60_000);
  const t = useHookRuns('fix the parser');

  function stopHook(text: string): string {
    writeFileSync(join(t.root, 'stop.js'), text);
    const file = join(t.root, 'hooks.json');
    writeFileSync(file, JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `node '${join(t.root, 'stop.js')}'` }] }] } }));
    return file;
  }

  const lastUserText = (i: number) => {
    const messages = t.server.requests[i]!.body.messages as Array<{ role: string; content: unknown }>;
    return JSON.stringify(messages.filter((m) => m.role === 'user').at(-1)!.content);
  };

  it('a hook answering {"decision":"block"} makes the turn go on with its reason; on the next stop it reads stop_hook_active and lets the turn end', async () => {
    t.server.enqueue({ type: 'reply', parts: [{ text: 'I changed the parser.' }] }, { type: 'reply', parts: [{ text: 'The tests pass now.' }] });
    const log = join(t.root, 'stops.jsonl');
    const file = stopHook(
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const e=JSON.parse(s);require('fs').appendFileSync(${JSON.stringify(log)},JSON.stringify(e)+'\\n');` +
        `if(!e.stop_hook_active)console.log(JSON.stringify({decision:'block',reason:'Run the parser tests before you stop.'}))})`,
    );
    const run = await t.exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(t.server.requests.length, 2, 'the turn went on once');
    assert.match(lastUserText(1), /Stop hook feedback .*: Run the parser tests before you stop\./);
    const stops = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(stops.map((s) => [s.hook_event_name, s.stop_hook_active, s.last_assistant_message]), [
      ['Stop', false, 'I changed the parser.'],
      ['Stop', true, 'The tests pass now.'],
    ]);
  });

  it('exit 2 with standard error blocks the stop the same way', async () => {
    t.server.enqueue({ type: 'reply', parts: [{ text: 'done' }] }, { type: 'reply', parts: [{ text: 'really done' }] });
    const file = stopHook(`let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{if(!JSON.parse(s).stop_hook_active){process.stderr.write('lint is failing');process.exit(2)}})`);
    const run = await t.exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(t.server.requests.length, 2);
    assert.match(lastUserText(1), /lint is failing/);
  });

  it(`a hook that always blocks is cut off after ${MAX_STOP_HOOK_CONTINUATIONS} continuations, and the turn says so`, async () => {
    for (let i = 0; i <= MAX_STOP_HOOK_CONTINUATIONS + 2; i++) t.server.enqueue({ type: 'reply', parts: [{ text: `answer ${i}` }] });
    const file = stopHook(`process.stdin.resume();process.stdin.on('end',()=>console.log(JSON.stringify({decision:'block',reason:'not yet'})))`);
    const run = await t.exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(t.server.requests.length, 1 + MAX_STOP_HOOK_CONTINUATIONS);
    assert.ok(run.lines.some((l) => l.type === 'notice' && l.message === STOP_HOOK_CAP_NOTICE), JSON.stringify(run.lines.filter((l) => l.type === 'notice')));
  });

  it('"continue": false ends the turn even with a block', async () => {
    t.server.enqueue({ type: 'reply', parts: [{ text: 'done' }] }, { type: 'reply', parts: [{ text: 'never sent' }] });
    const file = stopHook(`process.stdin.resume();process.stdin.on('end',()=>console.log(JSON.stringify({continue:false,stopReason:'enough',decision:'block',reason:'go on'})))`);
    const run = await t.exec(['--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(t.server.requests.length, 1);
  });
});
