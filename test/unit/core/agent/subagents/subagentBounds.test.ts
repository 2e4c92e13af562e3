import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAgentFile } from '../../../../../src/core/agent/subagents/namedAgents';
import { subagentSessions } from '../../../../../src/core/agent/subagents/sessionLink';
import type { Tool } from '../../../../../src/core/tools/types';
import { loadAgents } from '../../../../../src/node/prompt/agentFiles';
import { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../../fakes/scriptedServer';
import { firstUser, offeredTools, subagentHarness } from './subagentHarness';

const delegateCall = (task: string, agent?: string) => ({ toolCall: { name: 'delegate', arguments: JSON.stringify(agent ? { task, agent } : { task }) } });

/** The parent sends `first` once, then ends; each subagent follows `sub` (its own step count). */
function script(first: FakeReply, sub: (task: string, step: number) => FakeReply) {
  const steps = new Map<string, number>();
  return (req: RecordedRequest): FakeReply => {
    const user = firstUser(req);
    if (user.startsWith('USER:')) return (req.body.messages as Array<{ role: string }>).some((m) => m.role === 'tool') ? { type: 'reply', parts: [{ text: 'done' }] } : first;
    const step = steps.get(user) ?? 0;
    steps.set(user, step + 1);
    return sub(user, step);
  };
}

describe('subagents stay within what the user chose', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => server?.close());

  it('a subagent never gets a tool the user turned off in Configure Tools, whatever its agent file lists', async () => {
    let extensionToolRan = false;
    const extension: Tool = {
      definition: { name: 'ext_lookup', description: 'An extension tool', inputSchema: { type: 'object', properties: {} }, source: 'extension', origin: 'some.extension' },
      approval: 'external',
      execute: async () => ((extensionToolRan = true), { output: 'looked up' }),
    };
    const helper = parseAgentFile('---\nname: helper\ndescription: Helps\ntools: [echo, run_it, ext_lookup]\n---\nHelp.', 'helper.md', '/ws/.tally/agents/helper.md', 'workspace');
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: script({ type: 'reply', parts: [delegateCall('TASK help', 'helper')] }, (_task, step) =>
        step === 0
          ? { type: 'reply', parts: [{ toolCall: { name: 'run_it', arguments: '{}' } }, { toolCall: { name: 'ext_lookup', arguments: '{}' } }] }
          : { type: 'reply', parts: [{ text: 'report' }] },
      ),
    }).start();
    // The user turned the command tool off, and never turned the extension's tool on.
    const h = await subagentHarness({ server, agents: [helper], extraTools: [extension], choice: { enabled: [], disabled: ['run_it'] }, ask: async () => ({ approved: true }) });
    await h.agent.send('USER: help');
    const sub = server.requests.find((r) => firstUser(r) === 'TASK help')!;
    assert.deepEqual(offeredTools(sub), ['echo']);
    assert.equal(h.asked.length, 0, 'nothing asked: neither tool exists for the subagent');
    assert.equal(extensionToolRan, false);
    const [child] = await subagentSessions(h.env.store, h.contextSession.sessionId);
    const results = (await h.env.store.loadTranscript(child.info.id)).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.deepEqual(results, ['Unknown tool "run_it".', 'Unknown tool "ext_lookup".']);
    await h.env.dispose();
  });

  it('forty delegate calls in one reply start only the turn\'s bound of subagents, then one card asks; a "no" starts none more', async () => {
    const calls = Array.from({ length: 40 }, (_, i) => delegateCall(`TASK ${i}`));
    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script({ type: 'reply', parts: calls }, () => ({ type: 'reply', parts: [{ text: 'report' }] })) }).start();
    const h = await subagentHarness({ server, limits: { maxPerTurn: 3, maxConcurrent: 8 } });
    await h.agent.send('USER: go wide');
    assert.equal((await subagentSessions(h.env.store, h.contextSession.sessionId)).length, 3);
    assert.equal(h.asked.length, 1, 'one card for the whole reply');
    assert.match(h.asked[0].title, /Start more subagents\? This turn has started 3 subagents, the bound your settings set \(tally\.subagents\.maxPerTurn: 3\)/);
    const results = (await h.env.store.loadTranscript(h.contextSession.sessionId)).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(results.filter((r) => r === 'The user denied starting more subagents this turn.').length, 37);
    await h.env.dispose();
  });

  it('approving the card grants the bound again; the next turn starts from zero', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => delegateCall(`TASK ${i}`));
    let turn = 0;
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: (req) => {
        const user = firstUser(req);
        if (!user.startsWith('USER:')) return { type: 'reply', parts: [{ text: 'report' }] };
        const results = (req.body.messages as Array<{ role: string }>).filter((m) => m.role === 'tool').length;
        return results === turn * 5 ? { type: 'reply', parts: calls.map((c) => ({ toolCall: { ...c.toolCall, arguments: JSON.stringify({ task: `TASK ${turn}-${c.toolCall.arguments}` }) } })) } : { type: 'reply', parts: [{ text: 'done' }] };
      },
    }).start();
    const h = await subagentHarness({ server, limits: { maxPerTurn: 2, maxConcurrent: 1 }, ask: async () => ({ approved: true }) });
    await h.agent.send('USER: first');
    assert.equal((await subagentSessions(h.env.store, h.contextSession.sessionId)).length, 5);
    assert.equal(h.asked.length, 2, 'asked after 2 and after 4');
    turn = 1;
    await h.agent.send('USER: second');
    assert.equal((await subagentSessions(h.env.store, h.contextSession.sessionId)).length, 10);
    assert.equal(h.asked.length, 4, 'the second turn had its own bound');
    await h.env.dispose();
  });

  it('the turn\'s subagents share a token bound: a subagent past it stops, and the next asks', async () => {
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: script({ type: 'reply', parts: [delegateCall('TASK a'), delegateCall('TASK b')] }, (_task, step) =>
        step < 5 ? { type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: '{"text":"x"}' } }], usage: { input: 1000, output: 10 } } : { type: 'reply', parts: [{ text: 'report' }] },
      ),
    }).start();
    const h = await subagentHarness({ server, limits: { maxPerTurn: 10, maxTokensPerTurn: 2_500, maxConcurrent: 1 } });
    await h.agent.send('USER: spend');
    const subRequests = server.requests.filter((r) => firstUser(r).startsWith('TASK'));
    assert.equal(subRequests.length, 3, 'the first subagent stopped once the turn had used 2,500 tokens; the second never started');
    assert.equal(h.asked.length, 1);
    assert.match(h.asked[0].title, /This turn's subagents have used 3,030 tokens, past the bound your settings set \(tally\.subagents\.maxTokensPerTurn: 2,500\)/);
    const results = (await h.env.store.loadTranscript(h.contextSession.sessionId)).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.match(results[0], /stopped early: this turn's subagents reached their token bound together \(2500\)/);
    assert.equal(results[1], 'The user denied starting more subagents this turn.');
    await h.env.dispose();
  });
});

describe('a repository\'s agent cannot replace the user\'s own', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'tally-agent-precedence-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('~/.tally/agents/reviewer.md (read-only) wins over the workspace\'s reviewer.md with run_command, and the skip says why', async () => {
    const ws = join(root, 'ws');
    const user = join(root, 'user');
    mkdirSync(join(ws, '.tally', 'agents'), { recursive: true });
    mkdirSync(user);
    writeFileSync(join(user, 'reviewer.md'), '---\nname: reviewer\ndescription: My careful reviewer\n---\nRead only.');
    writeFileSync(join(ws, '.tally', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews\ntools: [read_file, run_command]\n---\nRun whatever helps.');
    const report = await loadAgents({ workspaceFolders: [ws], userAgentsFolder: user, trusted: true });
    assert.deepEqual(report.agents.map((a) => [a.origin, a.name, a.description, a.tools]), [['user', 'reviewer', 'My careful reviewer', undefined]]);
    assert.equal(report.skipped.length, 1);
    assert.match(report.skipped[0].reason, /the user's own agent "reviewer" .* has this name and wins/);
  });
});
