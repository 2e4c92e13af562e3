import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseAgentFile, type NamedAgent } from '../../../../../src/core/agent/subagents/namedAgents';
import { subagentSessions } from '../../../../../src/core/agent/subagents/sessionLink';
import { loadAgents } from '../../../../../src/node/prompt/agentFiles';
import { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../../fakes/scriptedServer';
import { firstUser, offeredTools, subagentHarness } from './subagentHarness';

const REVIEWER = `---
name: reviewer
description: Reviews a change for bugs
tools: [echo, run_it]
model: test-small
---
Look for off-by-one errors first.
`;

describe('subagents: named agents', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'tally-agents-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('parses name, description, tools, model and the body as instructions; a file without a description is refused with the reason', () => {
    const agent = parseAgentFile(REVIEWER, 'reviewer.md', '/x/reviewer.md', 'user');
    assert.deepEqual({ ...agent }, { name: 'reviewer', description: 'Reviews a change for bugs', tools: ['echo', 'run_it'], model: 'test-small', instructions: 'Look for off-by-one errors first.', path: '/x/reviewer.md', origin: 'user' });
    assert.deepEqual(parseAgentFile('---\ndescription: "Finds things"\ntools: echo, meet\n---\nBody', 'finder.md', '/f', 'user').tools, ['echo', 'meet']);
    assert.equal(parseAgentFile('---\ndescription: d\n---\n', 'plain.md', '/p', 'user').tools, undefined, 'no tools line: the read-only default');
    assert.throws(() => parseAgentFile('---\nname: x\n---\nbody', 'x.md', '/x', 'user'), /no description/);
    assert.throws(() => parseAgentFile('just text', 'x.md', '/x', 'user'), /no front matter/);
    assert.throws(() => parseAgentFile('---\nname: ../evil\ndescription: d\n---\n', 'x.md', '/x', 'user'), /not a plain name/);
  });

  it('an untrusted workspace contributes no agents; the user folder still does, and the user\'s agent wins a shared name when trusted', async () => {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, '.tally', 'agents'), { recursive: true });
    writeFileSync(join(ws, '.tally', 'agents', 'reviewer.md'), REVIEWER);
    writeFileSync(join(ws, '.tally', 'agents', 'broken.md'), 'no front matter');
    const user = join(root, 'user');
    mkdirSync(user);
    writeFileSync(join(user, 'helper.md'), '---\nname: helper\ndescription: Helps\n---\nHelp.');
    writeFileSync(join(user, 'reviewer.md'), '---\nname: reviewer\ndescription: The user one\n---\n');

    const untrusted = await loadAgents({ workspaceFolders: [ws], userAgentsFolder: user, trusted: false });
    assert.deepEqual(untrusted.agents.map((a) => `${a.origin}:${a.name}:${a.description}`), ['user:helper:Helps', 'user:reviewer:The user one']);

    const trusted = await loadAgents({ workspaceFolders: [ws], userAgentsFolder: user, trusted: true });
    assert.deepEqual(trusted.agents.map((a) => `${a.origin}:${a.name}`), ['user:helper', 'user:reviewer']);
    assert.deepEqual(trusted.skipped.map((s) => s.reason), ['no front matter (a block between --- lines with name and description)', `the user's own agent "reviewer" (${join(user, 'reviewer.md')}) has this name and wins`]);
  });

  it('a workspace agent file that links outside its folder is skipped', async () => {
    const ws = join(root, 'ws');
    mkdirSync(join(ws, '.tally', 'agents'), { recursive: true });
    writeFileSync(join(root, 'outside.md'), REVIEWER);
    symlinkSync(join(root, 'outside.md'), join(ws, '.tally', 'agents', 'linked.md'));
    const report = await loadAgents({ workspaceFolders: [ws], trusted: true });
    assert.deepEqual(report.agents, []);
    assert.equal(report.skipped.length, 1);
  });

  describe('running a named agent', () => {
    let server: FakeOpenAIServer | undefined;
    afterEach(async () => server?.close());
    const reviewer: NamedAgent = parseAgentFile(REVIEWER, 'reviewer.md', '/ws/.tally/agents/reviewer.md', 'workspace');

    function script(agentArgs: Record<string, unknown>, sub: (req: RecordedRequest) => FakeReply) {
      const replies = new Map<string, number>();
      return (req: RecordedRequest): FakeReply => {
        const user = firstUser(req);
        if (user.startsWith('USER:')) {
          return (req.body.messages as Array<{ role: string }>).some((m) => m.role === 'tool')
            ? { type: 'reply', parts: [{ text: 'done' }] }
            : { type: 'reply', parts: [{ toolCall: { name: 'delegate', arguments: JSON.stringify(agentArgs) } }] };
        }
        replies.set(user, (replies.get(user) ?? 0) + 1);
        return replies.get(user) === 1 ? sub(req) : { type: 'reply', parts: [{ text: 'reviewed' }] };
      };
    }

    it('the delegate tool offers the agents by description (counted in the prompt), and the agent runs with its instructions, tools and model', async () => {
      server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script({ task: 'TASK review', agent: 'reviewer' }, () => ({ type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: '{"text":"hi"}' } }] })) }).start();
      const plain = await subagentHarness({ server });
      const withAgent = await subagentHarness({ server, agents: [reviewer] });
      await withAgent.agent.send('USER: review');
      const parentTools = (server.requests.find((r) => firstUser(r) === 'USER: review')!.body.tools ?? []) as Array<{ function: { name: string; description: string } }>;
      assert.match(parentTools.find((t) => t.function.name === 'delegate')!.function.description, /- reviewer: Reviews a change for bugs/);
      const usage = await withAgent.env.store.listRequestUsage(withAgent.contextSession.sessionId);
      assert.ok(usage[0].components.tools > 0);
      server.enqueue({ type: 'reply', parts: [{ text: 'nothing to do' }] });
      await plain.agent.send('USER: plain');
      const plainUsage = await plain.env.store.listRequestUsage(plain.contextSession.sessionId);
      assert.ok(usage[0].components.tools > plainUsage[0].components.tools, 'the agents index is counted with the tools');

      const sub = server.requests.find((r) => firstUser(r) === 'TASK review')!;
      assert.equal(sub.body.model, 'test-small');
      assert.deepEqual(offeredTools(sub).sort(), ['echo', 'run_it']);
      const system = (sub.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'system').map((m) => m.content).join('\n');
      assert.match(system, /Look for off-by-one errors first\./);
      const [child] = await subagentSessions(withAgent.env.store, withAgent.contextSession.sessionId);
      assert.equal(child.link.agent, 'reviewer');
      await plain.env.dispose();
      await withAgent.env.dispose();
    });

    it('an agent that names a model the user did not configure does not run, and says why', async () => {
      server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script({ task: 'TASK review', agent: 'reviewer' }, () => ({ type: 'reply', parts: [{ text: 'x' }] })) }).start();
      const h = await subagentHarness({ server, agents: [{ ...reviewer, model: 'some-expensive-model' }] });
      await h.agent.send('USER: review');
      assert.equal(server.requests.filter((r) => firstUser(r).startsWith('TASK')).length, 0);
      const result = (await h.env.store.loadTranscript(h.contextSession.sessionId)).find((m) => m.role === 'tool')!.content;
      assert.match(result, /asks for the model "some-expensive-model", which is not a model the user configured/);
      await h.env.dispose();
    });

    it("a subagent's command goes through the same approval, and the card says which subagent asks", async () => {
      server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script({ task: 'TASK review', agent: 'reviewer' }, () => ({ type: 'reply', parts: [{ toolCall: { id: 'call_1', name: 'run_it', arguments: '{}' } }] })) }).start();
      const h = await subagentHarness({ server, agents: [reviewer] });
      await h.agent.send('USER: review');
      assert.equal(h.asked.length, 1, 'the user was asked');
      const [child] = await subagentSessions(h.env.store, h.contextSession.sessionId);
      const parentCall = h.contextSession.messages.flatMap((m) => m.toolCalls ?? [])[0];
      assert.deepEqual(h.asked[0].subagent, { sessionId: child.info.id, name: 'reviewer', parentCallId: parentCall.id });
      assert.notEqual(h.asked[0].callId, 'call_1', 'the card id cannot collide with another call of the same name');
      assert.ok(h.events.some((e) => e.type === 'approval_needed' && e.request.subagent?.name === 'reviewer'), 'the parent shows the card');
      const subTranscript = await h.env.store.loadTranscript(child.info.id);
      assert.equal(subTranscript.find((m) => m.role === 'tool')?.content, 'The user denied running the thing.');
      await h.env.dispose();
    });
  });
});
