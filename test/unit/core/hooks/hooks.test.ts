/**
 * Hooks as Claude Code scripts speak to them: configuration, answers, matchers on both tool names,
 * and which hooks run at all (a workspace's never while it is untrusted). Real processes.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { readHookAnswer } from '../../../../src/core/hooks/hookAnswer';
import { matchesTool, parseHooks } from '../../../../src/core/hooks/hookConfig';
import { Hooks } from '../../../../src/core/hooks/hooks';
import { hookToolCall, hookToolNames } from '../../../../src/core/hooks/hookToolNames';
import { NodeHookProcess } from '../../../../src/node/hooks/nodeHookProcess';

const exit = (exitCode: number, stdout = '', stderr = '') => ({ exitCode, stdout, stderr, timedOut: false });

describe('hooks', function () {
  this.timeout(30_000);

  describe('configuration in Claude Code\'s shape', () => {
    it('reads the settings file shape and the inner object, with per-hook time limits', () => {
      const inner = { PreToolUse: [{ matcher: 'Bash|Edit', hooks: [{ type: 'command', command: 'check.sh', timeout: 5 }] }], Stop: [{ hooks: [{ type: 'command', command: 'done.sh' }] }] };
      for (const value of [inner, { hooks: inner }]) {
        const parsed = parseHooks(value, 'user', 'settings');
        assert.deepEqual(parsed.problems, []);
        assert.deepEqual(parsed.hooks, [
          { event: 'PreToolUse', matcher: 'Bash|Edit', command: 'check.sh', timeoutSeconds: 5, origin: 'user' },
          { event: 'Stop', command: 'done.sh', origin: 'user' },
        ]);
      }
    });

    it('reports unknown events, bad matchers, missing commands and bad time limits, and keeps the rest', () => {
      const parsed = parseHooks({ Notification: [], PreToolUse: [{ matcher: '(', hooks: [] }, { hooks: [{ command: '' }, { command: 'ok.sh', timeout: -1 }, { command: 'good.sh' }] }] }, 'workspace', '.tally/hooks.json');
      assert.deepEqual(parsed.hooks.map((h) => h.command), ['good.sh']);
      assert.equal(parsed.problems.length, 4, parsed.problems.join('\n'));
      assert.match(parsed.problems.join('\n'), /unknown hook event "Notification"[\s\S]*"\(" is not a valid regular expression[\s\S]*needs a "command"[\s\S]*"timeout" must be a positive number/);
    });

    it('a matcher matches Tally\'s tool name or the name Claude Code scripts know', () => {
      assert.deepEqual(hookToolNames('run_command'), ['run_command', 'Bash']);
      assert.ok(matchesTool('Bash', hookToolNames('run_command')));
      assert.ok(matchesTool('run_command', hookToolNames('run_command')));
      assert.ok(matchesTool('Edit|Write', hookToolNames('write_file')));
      assert.ok(!matchesTool('Bash', hookToolNames('read_file')));
      assert.ok(!matchesTool('Bas', hookToolNames('run_command')), 'the whole name, not a part');
      assert.ok(matchesTool(undefined, ['anything']) && matchesTool('*', ['anything']));
      assert.deepEqual(hookToolCall('edit_file', { path: 'a.ts', old_text: 'x', new_text: 'y' }), { tool_name: 'Edit', tool_input: { file_path: 'a.ts', old_string: 'x', new_string: 'y' } });
    });
  });

  describe('answers', () => {
    it('reads exit status and JSON as Claude Code does', () => {
      assert.deepEqual(readHookAnswer('PreToolUse', exit(2, '', 'no rm\n'), 'h'), { decision: 'deny', reason: 'no rm' });
      assert.deepEqual(readHookAnswer('UserPromptSubmit', exit(2, '', 'no secrets'), 'h'), { decision: 'block', reason: 'no secrets' });
      assert.deepEqual(readHookAnswer('PreToolUse', exit(0, JSON.stringify({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'sure?' } })), 'h'), { decision: 'ask', reason: 'sure?' });
      assert.deepEqual(readHookAnswer('PreToolUse', exit(0, JSON.stringify({ decision: 'approve' })), 'h'), { decision: 'allow' });
      assert.deepEqual(readHookAnswer('PostToolUse', exit(0, JSON.stringify({ decision: 'block', reason: 'tests fail' })), 'h'), { decision: 'block', reason: 'tests fail' });
      assert.deepEqual(readHookAnswer('UserPromptSubmit', exit(0, 'Branch: main\n'), 'h'), { context: 'Branch: main' });
      assert.deepEqual(readHookAnswer('PostToolUse', exit(0, 'just a log line'), 'h'), {}, 'plain output of other events is not context');
      assert.deepEqual(readHookAnswer('SessionStart', exit(0, JSON.stringify({ hookSpecificOutput: { additionalContext: 'hello' }, systemMessage: 'loaded' })), 'h'), { context: 'hello', notice: 'loaded' });
      assert.match(readHookAnswer('PreToolUse', exit(1, '', 'boom'), 'h').notice!, /failed \(exit 1\): boom/);
      assert.match(readHookAnswer('PreToolUse', exit(0, '{"hookSpecificOutput": '), 'h').notice!, /could not be read/);
      assert.match(readHookAnswer('PreToolUse', { stdout: '', stderr: '', timedOut: true }, 'h').notice!, /did not finish in time/);
      assert.match(readHookAnswer('PreToolUse', { stdout: '', stderr: '', timedOut: true }, 'h', 2_500).notice!, /did not finish in time and was stopped after its limit of 2.5 s; the turn went on/);
    });
  });

  describe('which hooks run (real processes)', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tally-hooks-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    function hooksWith(trusted: boolean) {
      const mark = (name: string) => `cat > '${join(dir, name)}'`;
      const entries = [...parseHooks({ UserPromptSubmit: [{ hooks: [{ command: mark('user.json') }] }] }, 'user', 'settings').hooks, ...parseHooks({ UserPromptSubmit: [{ hooks: [{ command: mark('workspace.json') }] }] }, 'workspace', '.tally/hooks.json').hooks];
      return new Hooks({ hooks: () => entries, trusted: () => trusted, process: new NodeHookProcess(), sessionId: () => 's1', cwd: () => dir });
    }

    it('in Restricted Mode a workspace\'s hooks never run; the user\'s do, with the event as JSON on stdin', async () => {
      await hooksWith(false).fire('UserPromptSubmit', { prompt: 'hi' });
      assert.equal(existsSync(join(dir, 'workspace.json')), false);
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'user.json'), 'utf8')), { session_id: 's1', cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    });

    it('in a trusted workspace both run', async () => {
      await hooksWith(true).fire('UserPromptSubmit', { prompt: 'hi' });
      assert.ok(existsSync(join(dir, 'workspace.json')) && existsSync(join(dir, 'user.json')));
    });

    it('a hook that runs past its limit is stopped there, and the notice says the limit (its entry\'s, else the setting\'s)', async () => {
      const entries = parseHooks({ PreToolUse: [{ hooks: [{ command: 'sleep 600' }] }], PostToolUse: [{ hooks: [{ command: 'sleep 600', timeout: 1 }] }] }, 'user', 'settings').hooks;
      const hooks = new Hooks({ hooks: () => entries, trusted: () => true, process: new NodeHookProcess(), sessionId: () => 's', cwd: () => dir, timeoutMs: 1_500 });
      const [pre, post] = await Promise.all([hooks.fire('PreToolUse', {}, ['list_files']), hooks.fire('PostToolUse', {}, ['list_files'])]);
      assert.deepEqual(pre.notices, ['Hook `sleep 600` did not finish in time and was stopped after its limit of 1.5 s; the turn went on without it.']);
      assert.deepEqual(post.notices, ['Hook `sleep 600` did not finish in time and was stopped after its limit of 1 s; the turn went on without it.']);
    });

    it('a workspace hook\'s "allow" does not count as the user\'s (it never skips an approval); deny wins over allow', async () => {
      const allow = join(dir, 'allow.sh');
      writeFileSync(allow, `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'\n`);
      const deny = join(dir, 'deny.sh');
      writeFileSync(deny, `cat >/dev/null; echo 'not today' >&2; exit 2\n`);
      const entries = [...parseHooks({ PreToolUse: [{ hooks: [{ command: `sh '${allow}'` }] }] }, 'workspace', 'w').hooks];
      const hooks = new Hooks({ hooks: () => entries, trusted: () => true, process: new NodeHookProcess(), sessionId: () => 's', cwd: () => dir });
      const allowed = await hooks.fire('PreToolUse', {}, ['run_command', 'Bash']);
      assert.deepEqual([allowed.decision, allowed.allowedBy], ['allow', ['workspace']]);
      entries.push(...parseHooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ command: `sh '${deny}'` }] }] }, 'user', 'u').hooks);
      const denied = await hooks.fire('PreToolUse', {}, ['run_command', 'Bash']);
      assert.deepEqual([denied.decision, denied.reason, denied.decidedBy], ['deny', 'not today', `sh '${deny}'`]);
    });
  });
});
