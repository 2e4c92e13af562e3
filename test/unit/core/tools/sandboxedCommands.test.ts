/**
 * What the sandbox changes about running a command, through the agent's own path (run_command,
 * the approvals, the Node workspace, real bubblewrap): the card says where it runs and what it may
 * touch; allowances exist only in the sandbox; a command the sandbox stopped offers to run again
 * outside it, every time; the network is allowed per session; subagents share the session's
 * sandbox; checkpoints still see every write.
 */
import assert from 'node:assert/strict';
import { createServer } from 'net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import { CheckpointingWorkspace } from '../../../../src/core/checkpoints/checkpointingWorkspace';
import { applyRestore, planRestore } from '../../../../src/core/checkpoints/restore';
import { TurnCheckpointRecorder } from '../../../../src/core/checkpoints/turnRecorder';
import type { ApprovalAnswer } from '../../../../src/core/tools/approval';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { runCommandTool } from '../../../../src/core/tools/builtin/runCommand';
import { NO_SANDBOX_NO_ALLOWANCE } from '../../../../src/core/tools/commandSandboxing';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { FileCheckpointStore } from '../../../../src/node/checkpoints/fileCheckpointStore';
import { nodeRestoreTarget } from '../../../../src/node/checkpoints/nodeRestoreTarget';
import type { CommandSandbox } from '../../../../src/node/sandbox/commandSandbox';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../fakes/scriptedServer';
import { outputText, runOptions, testRegistry, testSandbox } from '../../../support/toolRegistry';
import { bubblewrapOrSkip } from '../../../support/bubblewrap';
import { firstUser, subagentHarness } from '../agent/subagents/subagentHarness';

describe('commands in the sandbox: cards, allowances, running again outside (real bubblewrap)', function () {
  this.timeout(60_000);
  let root: string;
  let ws: string;
  let outside: string;

  beforeEach(() => {
    // Under /var/tmp: a command's /tmp is private, so files under /tmp would be out of its sight anyway.
    root = realpathSync(mkdtempSync('/var/tmp/tally-sandboxed-commands-'));
    ws = join(root, 'ws');
    outside = join(root, 'outside');
    mkdirSync(ws);
    mkdirSync(outside);
    mkdirSync(join(root, 'home'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** run_command through a registry; `answers` answer the cards in turn (then every card is denied). */
  function session(options: { sandbox?: CommandSandbox | 'none'; always?: boolean; answers?: ApprovalAnswer[] } = {}) {
    const asked: ApprovalRequest[] = [];
    const answers = [...(options.answers ?? [])];
    const sandbox = options.sandbox ?? testSandbox({ home: join(root, 'home') });
    const registry = testRegistry({
      tools: builtinTools(),
      folders: [ws],
      sandbox,
      policy: { commands: options.always ? 'always' : 'ask', edits: 'ask' },
      ask: async (r) => (asked.push(r), answers.shift() ?? { approved: false }),
    });
    let n = 0;
    const run = async (command: string) => {
      const result = await registry.run({ id: `c${++n}`, name: 'run_command', arguments: JSON.stringify({ command }) }, runOptions());
      return { text: outputText(result), isError: result.isError === true };
    };
    return { asked, run };
  }

  describe('with bubblewrap', () => {
    before(function () {
      bubblewrapOrSkip(this);
    });

    it('the card says the command runs sandboxed and what it may touch, and offers the allowance', async () => {
      writeFileSync(join(root, 'home', '.npmrc'), 'token\n');
      const s = session({ answers: [{ approved: true, forSession: true }] });
      assert.match((await s.run('echo hello')).text, /^hello/);
      const card = s.asked[0];
      assert.equal(card.sandbox?.sandboxed, true);
      assert.equal(card.sandbox?.text, 'Sandboxed: writes only in the workspace folder and a private temporary folder, cannot read ~/.npmrc, has no network.');
      assert.match(card.sandbox?.detail ?? '', new RegExp(`Writable: ${ws}, and a private temporary folder`));
      assert.match(card.sandbox?.detail ?? '', /Read-only inside the workspace: \.git\/config, \.git\/hooks, \.vscode, \.tally/);
      assert.equal(card.allowForSession, '`echo hello` (plus more plain words) in the workspace folder');
      assert.match((await s.run('echo hello again')).text, /^hello again/);
      assert.equal(s.asked.length, 1, 'the allowance covers the next one');
    });

    it('a command the sandbox stopped says so, and the card offers to run it outside, every time, whatever the settings', async () => {
      const target = join(outside, 'written');
      const command = `echo x > '${target}'`;
      const s = session({ always: true, answers: [{ approved: false }, { approved: true, forSession: true }] });
      const denied = await s.run(command);
      assert.equal(s.asked.length, 1, 'commands run without asking, but running outside the sandbox asks');
      const card = s.asked[0];
      assert.equal(card.outsideSandbox, true);
      assert.equal(card.approveLabel, 'Run outside the sandbox');
      assert.equal(card.allowForSession, undefined, 'running outside the sandbox is never allowed for the session');
      assert.equal(card.allowance, undefined);
      assert.match(card.title, /^Run again outside the sandbox: `echo x > '.*written'` in \.$/);
      assert.match(card.sandbox?.text ?? '', /^It failed in the sandbox; the sandbox may have stopped it: it refuses writes outside the workspace .*“Read-only file system”.*Outside it, the command can change any file you can/);
      assert.match(denied.text, /Read-only file system[\s\S]*\[exit code 2\]\n\[It failed in the sandbox; the sandbox may have stopped it: .*\]\n\[The user chose not to run it outside the sandbox\.\]$/);
      assert.equal(denied.isError, true);
      assert.equal(existsSync(target), false);

      const approved = await s.run(command);
      assert.equal(s.asked.length, 2, 'asked again');
      assert.match(approved.text, /^\[Ran again outside the sandbox, as the user approved, after it failed inside\.\]\n\n\[exit code 0\]$/);
      assert.equal(readFileSync(target, 'utf8'), 'x\n');

      rmSync(target);
      await s.run(command);
      assert.equal(s.asked.length, 3, 'approving with "for this session" granted nothing: it asks again');
      assert.equal(existsSync(target), false);
    });

    it('a command that lacked the network offers the network for the session: it runs again in the sandbox, and later commands have it', async () => {
      let connections = 0;
      const server = createServer((socket) => {
        connections++;
        socket.end('pong\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      const fetch = `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write('got ' + d)).on('error', (e) => { console.log(e.message); process.exit(1) })"`;
      try {
        const s = session({ always: true, answers: [{ approved: true, forSession: true }] });
        const first = await s.run(fetch);
        assert.equal(s.asked.length, 1);
        assert.equal(s.asked[0].allowForSession, 'network for sandboxed commands');
        assert.match(s.asked[0].sandbox?.text ?? '', /it has no network \(the output says “ECONNREFUSED”\)/);
        assert.match(first.text, /^\[Ran again in the sandbox with the network, which the user allowed for this session\.\]\ngot pong/);
        assert.equal(connections, 1, 'only the run with the network reached the server');
        assert.match((await s.run(fetch)).text, /^got pong/);
        assert.equal(s.asked.length, 1, 'no card: commands run without asking, and this one had the network');
        assert.equal(connections, 2);
        const written = await s.run(`echo x > '${outside}/f'`);
        assert.match(written.text, /Read-only file system/, 'the network changed nothing else');
      } finally {
        server.close();
      }
    });

    it("a subagent's commands run in the session's sandbox, with what the session allowed", async () => {
      const sandbox = testSandbox({ home: join(root, 'home') });
      sandbox.allowNetwork();
      const target = join(outside, 'from-subagent');
      const replies = new Map<string, number>();
      const script = (req: RecordedRequest): FakeReply => {
        const user = firstUser(req);
        if (user.startsWith('USER:')) {
          return (req.body.messages as Array<{ role: string }>).some((m) => m.role === 'tool')
            ? { type: 'reply', parts: [{ text: 'done' }] }
            : { type: 'reply', parts: [{ toolCall: { name: 'delegate', arguments: JSON.stringify({ task: 'TASK build', agent: 'builder' }) } }] };
        }
        replies.set(user, (replies.get(user) ?? 0) + 1);
        return replies.get(user) === 1 ? { type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command: `echo x > '${target}'` }) } }] } : { type: 'reply', parts: [{ text: 'built' }] };
      };
      const server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script }).start();
      try {
        const answers: ApprovalAnswer[] = [{ approved: true }];
        const h = await subagentHarness({
          server,
          workspace: () => new NodeWorkspace({ folders: [ws], trusted: true }, sandbox),
          extraTools: [runCommandTool],
          agents: [{ name: 'builder', description: 'Builds', tools: ['run_command'], instructions: 'Build it.', path: '/x/builder.md', origin: 'user' }],
          ask: async () => answers.shift() ?? { approved: false },
        });
        await h.agent.send('USER: build');
        assert.equal(h.asked[0].subagent?.name, 'builder');
        assert.match(h.asked[0].sandbox?.text ?? '', /^Sandboxed: .* reaches the network \(allowed for this session\)\.$/);
        assert.equal(h.asked[1]?.outsideSandbox, true, 'its refused write offers to run outside, on a card of its own');
        assert.equal(existsSync(target), false);
        await h.env.dispose();
      } finally {
        await server.close();
      }
    });

    it('checkpoints record what a sandboxed command wrote, and restore undoes it', async () => {
      writeFileSync(join(ws, 'notes.txt'), 'first draft\n');
      const store = new FileCheckpointStore(join(root, 'storage'));
      const recorder = new TurnCheckpointRecorder(store, { onProblem: () => undefined });
      const workspace = new CheckpointingWorkspace(new NodeWorkspace({ folders: [ws], trusted: true }, testSandbox({ home: join(root, 'home') })), recorder);
      recorder.begin('s1', 'u1');
      const result = await workspace.exec('printf "rewritten\\n" > notes.txt && printf "made\\n" > made.txt', { cwd: ws, timeoutMs: 20_000, maxOutputBytes: 65_536, signal: new AbortController().signal });
      assert.equal(result.failed, false, Buffer.from(result.output).toString());
      const checkpoint = await recorder.end();
      assert.deepEqual(checkpoint?.files.map((f) => f.relative).sort(), ['made.txt', 'notes.txt']);
      const outcome = await applyRestore(await planRestore([checkpoint!], store), store, nodeRestoreTarget);
      assert.deepEqual(outcome.failed, []);
      assert.equal(readFileSync(join(ws, 'notes.txt'), 'utf8'), 'first draft\n');
      assert.equal(existsSync(join(ws, 'made.txt')), false);
    });
  });

  it('with no bubblewrap the card says why, offers no allowance, and never offers to run outside a sandbox there was none of', async () => {
    const missing = testSandbox({ home: join(root, 'home') }, { platform: 'linux', bubblewrap: join(root, 'no-such-bwrap') });
    const s = session({ sandbox: missing, answers: [{ approved: true, forSession: true }, { approved: true, forSession: true }] });
    const ran = await s.run(`echo hello; echo x > '${outside}/f'`);
    assert.match(ran.text, /^hello\n\n\[exit code 0\]$/, 'it ran, without a sandbox, after the user approved');
    assert.equal(existsSync(join(outside, 'f')), true);
    const card = s.asked[0];
    assert.equal(card.allowance, undefined);
    assert.equal(card.allowForSession, undefined);
    assert.equal(card.noAllowance, NO_SANDBOX_NO_ALLOWANCE);
    assert.equal(card.sandbox?.sandboxed, false);
    assert.match(card.sandbox?.text ?? '', /^No sandbox: bubblewrap \(bwrap\) is not installed: install the bubblewrap package \(Debian and Ubuntu: sudo apt install bubblewrap;.*\); the command can change any file you can, read your secrets and use the network\.$/);
    await s.run('echo hello');
    assert.equal(s.asked.length, 2, 'answering "for this session" granted nothing: it asks again');

    const windows = session({ sandbox: testSandbox({}, { platform: 'win32' }) });
    await windows.run('echo hi');
    assert.match(windows.asked[0].sandbox?.text ?? '', /^No sandbox: Windows has no sandbox Tally can run commands in;/);
    assert.equal(windows.asked[0].allowForSession, undefined);
    const off = session({ sandbox: testSandbox({ enabled: false, turnedOffBy: 'tally.sandbox.enabled is false in your user settings' }) });
    await off.run('echo hi');
    assert.match(off.asked[0].sandbox?.text ?? '', /^No sandbox: the sandbox is turned off \(tally\.sandbox\.enabled is false in your user settings\);/);
    assert.equal(off.asked[0].allowForSession, undefined);
  });
});
