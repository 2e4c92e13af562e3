/**
 * Hooks through `tally exec`: real hook scripts (sh and node) written to a temporary folder, in
 * Claude Code's format, around a turn against a local fake OpenAI-compatible server.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import { EXEC_EXIT } from '../../../src/cli/exec';
import { openStore } from '../../../src/node/store';
import { toolView } from '../../../src/host/chat/chatEntryViews';
import { useHookRuns } from './execHookRuns';

/** Whether a process has ended: gone, or a zombie nobody reaped yet (a container's first process may not reap). */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return / Z /.test(stat.slice(stat.lastIndexOf(')') + 1, stat.lastIndexOf(')') + 4));
}

describe('tally exec: hooks', function () {
  this.timeout(60_000);
  const t = useHookRuns('make the file');

  /** Writes a script and a hooks file naming it; returns the hooks file. */
  function hooksFile(event: string, script: { name: string; text: string; run: (path: string) => string }, extra: Record<string, unknown> = {}): string {
    const path = join(t.root, script.name);
    writeFileSync(path, script.text, { mode: 0o755 });
    const file = join(t.root, `${event}.hooks.json`);
    writeFileSync(file, JSON.stringify({ hooks: { [event]: [{ matcher: 'Bash', hooks: [{ type: 'command', command: script.run(path), ...extra }] }] } }));
    return file;
  }

  function commandCall(command: string) {
    t.server.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command }) } }] }, { type: 'reply', parts: [{ text: 'done' }] });
  }

  /** What the model read as the tool's result, in the second request. */
  function toolResultSent(): string {
    const messages = t.server.requests[1]!.body.messages as Array<{ role: string; content: unknown }>;
    return String(messages.find((m) => m.role === 'tool')!.content);
  }

  // A script as Claude Code's documentation writes them: reads the event from stdin, blocks with exit 2.
  const claudeBlocker = {
    name: 'block-rm.sh',
    text: `#!/bin/sh
input=$(cat)
tool=$(printf '%s' "$input" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const e=JSON.parse(s);process.stdout.write(e.tool_name+"|"+e.tool_input.command+"|"+e.hook_event_name)})')
case "$tool" in
  "Bash|"*"rm -rf"*"|PreToolUse") echo "Destructive command blocked by policy" >&2; exit 2;;
esac
exit 0
`,
    run: (path: string) => `sh '${path}'`,
  };

  it('a Claude Code PreToolUse script denies a Bash call with exit 2: the command does not run and the model reads the reason', async () => {
    commandCall('touch made.txt; rm -rf nothing');
    const run = await t.exec(['--allow', 'command', '--hooks', hooksFile('PreToolUse', claudeBlocker)]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(existsSync(join(t.work, 'made.txt')), false, 'the command did not run');
    assert.match(toolResultSent(), /A hook \(`sh .*block-rm\.sh'`\) denied this call: Destructive command blocked by policy/);
    // The stored result names the hook, so the chat's card says who denied the call and why.
    const store = await openStore(join(t.root, 'store'));
    try {
      const result = (await store.loadTranscript(run.lines[0]!.id)).find((m) => m.role === 'tool')!;
      assert.deepEqual(result.meta?.deniedByHook, { hook: `sh '${join(t.root, 'block-rm.sh')}'`, reason: 'Destructive command blocked by policy' });
      assert.deepEqual(toolView({ id: result.toolCallId!, name: 'run_command', arguments: '{}' }, result).deniedBy, { hook: `sh '${join(t.root, 'block-rm.sh')}'`, reason: 'Destructive command blocked by policy' });
    } finally {
      await store.close();
    }
  });

  it('the same script lets a harmless command run', async () => {
    commandCall('touch made.txt');
    const run = await t.exec(['--allow', 'command', '--hooks', hooksFile('PreToolUse', claudeBlocker)]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(existsSync(join(t.work, 'made.txt')), true);
  });

  it('a user hook that answers permissionDecision "allow" runs the command without --allow command', async () => {
    commandCall('touch made.txt');
    const allow = { name: 'allow.js', text: `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'allow',permissionDecisionReason:'fine'}}))})`, run: (p: string) => `node '${p}'` };
    const run = await t.exec(['--hooks', hooksFile('PreToolUse', allow)]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(existsSync(join(t.work, 'made.txt')), true);
  });

  it('"ask" puts the call to the approvals, which exec refuses without --allow read', async () => {
    commandCall('touch made.txt');
    const ask = { name: 'ask.js', text: `process.stdin.resume();process.stdin.on('end',()=>console.log(JSON.stringify({hookSpecificOutput:{permissionDecision:'ask',permissionDecisionReason:'touching files'}})))`, run: (p: string) => `node '${p}'` };
    const run = await t.exec(['--allow', 'command', '--hooks', hooksFile('PreToolUse', ask)]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.equal(existsSync(join(t.work, 'made.txt')), false);
    assert.match(toolResultSent(), /The user denied run_command after a hook asked\./);
    assert.ok(run.lines.some((l) => l.type === 'approval_needed' && /a hook asks .*touching files/.test(l.title)));
  });

  it('a PostToolUse hook adds context: an item of its own with the hook as its source, sent with the next request', async () => {
    commandCall('echo hi');
    const post = { name: 'post.js', text: `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const e=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PostToolUse',additionalContext:'lint: 0 problems after '+e.tool_input.command}}))})`, run: (p: string) => `node '${p}'` };
    const file = hooksFile('PostToolUse', post);
    const run = await t.exec(['--allow', 'command', '--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.match(JSON.stringify(t.server.requests[1]!.body.messages), /lint: 0 problems after echo hi/);
    const store = await openStore(join(t.root, 'store'));
    try {
      const usage = await store.listRequestUsage(run.lines[0]!.id);
      const item = usage[1]!.items.find((i) => i.kind === 'hook')!;
      assert.ok(item, 'the second request carried the hook item');
      assert.equal(item.source, `node '${join(t.root, 'post.js')}'`);
      assert.equal(item.label, 'PostToolUse hook');
      assert.ok(item.tokens > 0);
      assert.equal(usage[0]!.items.some((i) => i.kind === 'hook'), false, 'nothing before the hook ran');
      // An owner of its own in the figures (the inspector's bar and legend): not folded into System.
      assert.equal(usage[1]!.components.hooks, item.tokens);
      assert.equal(usage[0]!.components.hooks, undefined);
    } finally {
      await store.close();
    }
  });

  it('a hook that never exits is killed at its time limit, reported, and the turn goes on', async () => {
    commandCall('touch made.txt');
    const pidFile = join(t.root, 'hook.pid');
    // Writes its pid, then waits for ever (tail -f of an empty file never ends).
    const stuck = { name: 'stuck.sh', text: `echo $$ > '${pidFile}'\nexec tail -f /dev/null\n`, run: (p: string) => `sh '${p}'` };
    const run = await t.exec(['--allow', 'command', '--hooks', hooksFile('PreToolUse', stuck, { timeout: 2 })]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.ok(run.lines.some((l) => l.type === 'notice' && /did not finish in time and was stopped/.test(l.message)), JSON.stringify(run.lines));
    assert.equal(existsSync(join(t.work, 'made.txt')), true, 'the call went on');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(ended(pid), 'the hook process was killed');
  });

  it('a failing hook and one that prints malformed JSON are reported and change nothing', async () => {
    commandCall('touch made.txt');
    const failing = { name: 'fail.sh', text: 'echo "config missing" >&2; exit 1\n', run: (p: string) => `sh '${p}'` };
    const malformed = { name: 'bad.sh', text: 'cat >/dev/null; echo "{not json"\n', run: (p: string) => `sh '${p}'` };
    writeFileSync(join(t.root, failing.name), failing.text);
    writeFileSync(join(t.root, malformed.name), malformed.text);
    const file = join(t.root, 'both.json');
    writeFileSync(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'run_command', hooks: [{ command: failing.run(join(t.root, failing.name)) }, { command: malformed.run(join(t.root, malformed.name)) }] }] } }));
    const run = await t.exec(['--allow', 'command', '--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    const notices = run.lines.filter((l) => l.type === 'notice').map((l) => l.message);
    assert.ok(notices.some((m) => /failed \(exit 1\): config missing/.test(m)), notices.join('\n'));
    assert.ok(notices.some((m) => /printed JSON that could not be read/.test(m)), notices.join('\n'));
    assert.equal(existsSync(join(t.work, 'made.txt')), true);
  });

  it('a UserPromptSubmit hook blocks the prompt: nothing is sent and exec exits 4 with the reason', async () => {
    const script = { name: 'prompt.sh', text: 'grep -q secret && { echo "prompts may not mention secrets" >&2; exit 2; }; exit 0\n', run: (p: string) => `sh '${p}'` };
    const run = await t.exec(['--hooks', hooksFile('UserPromptSubmit', script)], 'print the secret');
    assert.equal(run.code, EXEC_EXIT.blocked);
    assert.equal(t.server.requests.length, 0);
    assert.ok(run.lines.some((l) => l.type === 'error' && /blocked this prompt: prompts may not mention secrets/.test(l.message)));
  });

  it("hooks run around a subagent's tool calls too: a Read matcher denies the subagent's read_file", async () => {
    writeFileSync(join(t.work, 'secret.txt'), 'the secret');
    t.server.enqueue(
      { type: 'reply', parts: [{ toolCall: { id: 'call_delegate', name: 'delegate', arguments: JSON.stringify({ task: 'Read secret.txt.' }) } }] },
      { type: 'reply', parts: [{ toolCall: { name: 'read_file', arguments: JSON.stringify({ path: 'secret.txt' }) } }] },
      { type: 'reply', parts: [{ text: 'could not read it' }] },
      { type: 'reply', parts: [{ text: 'done' }] },
    );
    const file = join(t.root, 'read.json');
    writeFileSync(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Read', hooks: [{ command: `cat >/dev/null; echo 'reading is off' >&2; exit 2` }] }] } }));
    const run = await t.exec(['--allow', 'delegate', '--hooks', file]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    const subagentResult = (t.server.requests[2]!.body.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === 'tool')!;
    assert.match(String(subagentResult.content), /denied this call: reading is off/);
    assert.doesNotMatch(JSON.stringify(t.server.requests.map((r) => r.body)), /the secret/);
  });

  it('reads the user-level ~/.tally/hooks.json; a missing --hooks file is a usage error', async () => {
    mkdirSync(join(t.root, 'home', '.tally'));
    const script = { name: 'start.sh', text: 'cat >/dev/null; echo "Today is release day."\n', run: (p: string) => `sh '${p}'` };
    const file = hooksFile('SessionStart', script);
    writeFileSync(join(t.root, 'home', '.tally', 'hooks.json'), readFileSync(file));
    t.server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
    const run = await t.exec([]);
    assert.equal(run.code, EXEC_EXIT.done, run.stderr);
    assert.match(JSON.stringify(t.server.requests[0]!.body.messages), /Today is release day\./);

    const missing = await t.exec(['--hooks', join(t.root, 'nope.json')]);
    assert.equal(missing.code, EXEC_EXIT.usage);
    assert.match(missing.stderr, /--hooks .*nope\.json: no such file/);
  });
});
