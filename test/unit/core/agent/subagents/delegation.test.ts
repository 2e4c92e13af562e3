import { strict as assert } from 'assert';
import { subagentSessions, totalsWithSubagents } from '../../../../../src/core/agent/subagents/sessionLink';
import { validateHistory } from '../../../../../src/core/history/normalize';
import { FakeOpenAIServer } from '../../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../../fakes/scriptedServer';
import { withSettings } from '../../../../../src/core/settings';
import { Barrier, firstUser, offeredTools, subagentHarness, toolResults } from './subagentHarness';

const delegateCall = (task: string, agent?: string) => ({ toolCall: { name: 'delegate', arguments: JSON.stringify(agent ? { task, agent } : { task }) } });

/** Replies by who asks: the parent (the user's words, step = its tool results so far) or a subagent (its task, step = its requests so far). */
function router(parent: (request: RecordedRequest, step: number) => FakeReply, sub: (task: string, step: number, request: RecordedRequest) => FakeReply) {
  const steps = new Map<string, number>();
  return (request: RecordedRequest): FakeReply => {
    const user = firstUser(request);
    if (user.startsWith('USER:')) return parent(request, toolResults(request));
    const step = steps.get(user) ?? 0;
    steps.set(user, step + 1);
    return sub(user, step, request);
  };
}

describe('subagents: delegation', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => server?.close());

  it('two delegations in one reply run in parallel, each compacts in its own small window, and the parent reads only their reports', async () => {
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: router(
        (_req, step) => (step === 0 ? { type: 'reply', parts: [{ text: 'Splitting.' }, delegateCall('TASK alpha'), delegateCall('TASK beta')], usage: { input: 1000, output: 30 } } : { type: 'reply', parts: [{ text: 'Both done.' }], usage: { input: 1200, output: 5 } }),
        (task, step) => {
          const who = task.includes('alpha') ? 'ALPHA' : 'BETA';
          if (step === 0) return { type: 'reply', parts: [{ toolCall: { name: 'meet', arguments: '{}' } }], usage: { input: 700, output: 10 } };
          if (step < 9) return { type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: JSON.stringify({ text: `${who}-RAW-OUTPUT line ${step}`, big: 120 }) } }], usage: { input: 900, output: 10 } };
          return { type: 'reply', parts: [{ text: `${who} report: found it in src/${who.toLowerCase()}.ts:12` }], usage: { input: 900, output: 20 } };
        },
      ),
    }).start();
    const h = await subagentHarness({ server, barrier: new Barrier(2), subSettings: withSettings({ contextWindow: 6_000, maxOutputTokens: 500 }) });
    assert.equal(await h.agent.send('USER: look at alpha and beta'), 'end_turn');

    // The parent's second request carries the two reports, and nothing of the subagents' own work.
    const parentRequests = server.requests.filter((r) => firstUser(r).startsWith('USER:'));
    assert.equal(parentRequests.length, 2);
    const toolMessages = (parentRequests[1].body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(toolMessages.length, 2);
    assert.match(toolMessages[0], /^ALPHA report: found it in src\/alpha.ts:12\n\[general subagent: 10 requests/);
    assert.match(toolMessages[1], /^BETA report/);
    assert.ok(!JSON.stringify(parentRequests[1].body).includes('RAW-OUTPUT'), 'no subagent tool output reaches the parent');

    // Each subagent is a stored session of its own, linked to the parent's call, and compacted in its window.
    const calls = h.contextSession.messages.flatMap((m) => m.toolCalls ?? []);
    const children = await subagentSessions(h.env.store, h.contextSession.sessionId);
    assert.deepEqual(children.map((c) => c.link.parentCallId).sort(), calls.map((c) => c.id).sort());
    for (const child of children) {
      const transcript = await h.env.store.loadTranscript(child.info.id);
      assert.match(transcript[0].content, /^TASK (alpha|beta)$/);
      assert.equal(transcript.filter((m) => m.role === 'tool').length, 9, 'every tool result is kept in the stored transcript');
      assert.ok((await h.env.store.listCompactionEvents(child.info.id)).length > 0, `${child.info.id} compacted`);
      assert.equal((await h.env.store.listRequestUsage(child.info.id)).length, 10);
    }
    // Progress reached the parent's events under each subagent's session id.
    const progress = h.progress();
    for (const child of children) {
      const kinds = new Set(progress.filter((p) => p.sessionId === child.info.id).map((p) => p.kind));
      assert.deepEqual([...kinds].sort(), ['compaction', 'ended', 'request', 'started', 'tool_call', 'usage']);
    }
    const totals = await totalsWithSubagents(h.env.store, h.contextSession.sessionId);
    assert.equal(totals.requests, 22);
    assert.equal(totals.subagents.requests, 20);
    await h.env.dispose();
  });

  it('cancelling the turn stops every subagent of it and leaves each history valid', async () => {
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: router(
        () => ({ type: 'reply', parts: [delegateCall('TASK one'), delegateCall('TASK two')] }),
        () => ({ type: 'reply', parts: [{ text: 'Waiting.' }, { toolCall: { name: 'wait', arguments: '{}' } }] }),
      ),
    }).start();
    let waiting = 0;
    let bothWaiting: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (bothWaiting = resolve));
    const h = await subagentHarness({ server, onWait: () => ++waiting === 2 && bothWaiting() });
    const turn = h.agent.send('USER: two slow things');
    await ready;
    h.agent.cancel();
    assert.equal(await turn, 'cancelled');
    const children = await subagentSessions(h.env.store, h.contextSession.sessionId);
    assert.equal(children.length, 2);
    const ended = h.progress().filter((p) => p.kind === 'ended');
    assert.deepEqual(ended.map((p) => p.kind === 'ended' && p.stopReason), ['cancelled', 'cancelled']);
    for (const child of children) {
      const transcript = await h.env.store.loadTranscript(child.info.id);
      assert.deepEqual(validateHistory(transcript), [], 'the subagent history has every call answered');
    }
    assert.deepEqual(validateHistory(h.contextSession.planRequest().messages), []);
    assert.equal(server.requests.length, 3, 'nothing was sent after the cancel');
    await h.env.dispose();
  });

  it('a subagent stops at its request cap and at its token cap, and says so in its report', async () => {
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: router(
        (_req, step) => (step === 0 ? { type: 'reply', parts: [delegateCall('TASK forever')] } : { type: 'reply', parts: [{ text: 'ok' }] }),
        (_task, step) => ({ type: 'reply', parts: [{ text: `step ${step}` }, { toolCall: { name: 'echo', arguments: '{"text":"again"}' } }], usage: { input: 900, output: 50 } }),
      ),
    }).start();
    const capped = await subagentHarness({ server, limits: { maxRequests: 3 } });
    await capped.agent.send('USER: go');
    const subRequests = () => server!.requests.filter((r) => firstUser(r).startsWith('TASK'));
    assert.equal(subRequests().length, 3);
    const report = (await capped.env.store.loadTranscript(capped.contextSession.sessionId)).find((m) => m.role === 'tool')!.content;
    assert.match(report, /^step 2\n\[general subagent: 3 requests, 2850 tokens; stopped early: it reached its request cap \(3\)\]$/);
    await capped.env.dispose();

    const before = subRequests().length;
    const tokenCapped = await subagentHarness({ server, limits: { maxTokens: 1_500 } });
    await tokenCapped.agent.send('USER: go');
    assert.equal(subRequests().length - before, 2, 'the second request crossed the cap');
    const second = (await tokenCapped.env.store.loadTranscript(tokenCapped.contextSession.sessionId)).find((m) => m.role === 'tool')!.content;
    assert.match(second, /stopped early: it reached its token cap \(1500\)/);
    await tokenCapped.env.dispose();
  });

  it("a subagent whose request fails ends with an error result that says why, and the parent goes on", async () => {
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: router(
        (_req, step) => (step === 0 ? { type: 'reply', parts: [delegateCall('TASK fails')] } : { type: 'reply', parts: [{ text: 'I will do it myself.' }] }),
        () => ({ type: 'error', status: 400, body: { error: { message: 'model not found', type: 'invalid_request_error' } } }),
      ),
    }).start();
    const h = await subagentHarness({ server });
    assert.equal(await h.agent.send('USER: try'), 'end_turn');
    const result = (await h.env.store.loadTranscript(h.contextSession.sessionId)).find((m) => m.role === 'tool')!;
    assert.match(result.content, /^The subagent stopped before it wrote a report\.\n\[general subagent: 1 request, 0 tokens; stopped early: a request failed \(.*model not found.*\)\]$/);
    const ended = h.progress().find((p) => p.kind === 'ended');
    assert.ok(ended?.kind === 'ended' && ended.stopReason === 'error' && /model not found/.test(ended.error ?? ''));
    await h.env.dispose();
  });

  it('a long report is cut to the report bound, its beginning and end kept', async () => {
    const long = ['FIRST LINE', ...Array.from({ length: 3000 }, (_, i) => `finding ${i}`), 'LAST LINE'].join('\n');
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: router(
        (_req, step) => (step === 0 ? { type: 'reply', parts: [delegateCall('TASK long')] } : { type: 'reply', parts: [{ text: 'ok' }] }),
        () => ({ type: 'reply', parts: [{ text: long }] }),
      ),
    }).start();
    const h = await subagentHarness({ server, limits: { maxReportBytes: 2_048 } });
    await h.agent.send('USER: long');
    const parentSecond = server.requests.filter((r) => firstUser(r).startsWith('USER:'))[1];
    const report = (parentSecond.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'tool')!.content;
    assert.ok(Buffer.byteLength(report) < 2_048 + 200, `${Buffer.byteLength(report)} bytes`);
    assert.match(report, /^FIRST LINE\n/);
    assert.match(report, /omitted .* lines/);
    assert.match(report, /LAST LINE\n\[general subagent: 1 request, \d+ tokens\]$/);
    await h.env.dispose();
  });

  it('no more subagents run at once than the bound allows; the rest wait and still run', async () => {
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: router(
        (_req, step) => (step === 0 ? { type: 'reply', parts: [delegateCall('TASK a'), delegateCall('TASK b'), delegateCall('TASK c')] } : { type: 'reply', parts: [{ text: 'done' }] }),
        (task, step) => (step === 0 ? { type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: '{"text":"x"}' } }] } : { type: 'reply', parts: [{ text: `report of ${task}` }] }),
      ),
    }).start();
    const h = await subagentHarness({ server, limits: { maxConcurrent: 2 } });
    await h.agent.send('USER: three');
    let active = 0;
    let most = 0;
    for (const p of h.progress()) {
      if (p.kind === 'started') most = Math.max(most, ++active);
      if (p.kind === 'ended') active--;
    }
    assert.equal(most, 2);
    assert.equal(h.progress().filter((p) => p.kind === 'ended').length, 3);
    await h.env.dispose();
  });

  it('a subagent has the read-only tools and no delegate tool unless the user allows nesting', async () => {
    const script = () =>
      router(
        (_req, step) => (step === 0 ? { type: 'reply', parts: [delegateCall('TASK nest')] } : { type: 'reply', parts: [{ text: 'done' }] }),
        (_task, step) => (step === 0 ? { type: 'reply', parts: [delegateCall('TASK deeper')] } : { type: 'reply', parts: [{ text: 'sub done' }] }),
      );
    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script() }).start();
    const h = await subagentHarness({ server });
    await h.agent.send('USER: nest');
    const first = server.requests.find((r) => firstUser(r) === 'TASK nest')!;
    assert.deepEqual(offeredTools(first).sort(), ['compact_context', 'echo', 'meet', 'read_result', 'update_todos', 'wait'].sort(), 'read-only tools only: no command tool, no delegate');
    assert.equal(server.requests.filter((r) => firstUser(r) === 'TASK deeper').length, 0, 'the nested delegation did not run');
    const subTranscript = await h.env.store.loadTranscript((await subagentSessions(h.env.store, h.contextSession.sessionId))[0].info.id);
    assert.match(subTranscript.find((m) => m.role === 'tool')!.content, /Unknown tool "delegate"/);
    await h.env.dispose();
    await server.close();

    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script() }).start();
    const allowed = await subagentHarness({ server, limits: { allowNested: true } });
    await allowed.agent.send('USER: nest');
    assert.ok(offeredTools(server.requests.find((r) => firstUser(r) === 'TASK nest')!).includes('delegate'));
    const deeper = server.requests.find((r) => firstUser(r) === 'TASK deeper');
    assert.ok(deeper, 'the nested subagent ran');
    assert.ok(!offeredTools(deeper).includes('delegate'), 'one level deeper at most');
    const child = (await subagentSessions(allowed.env.store, allowed.contextSession.sessionId))[0];
    assert.equal((await subagentSessions(allowed.env.store, child.info.id)).length, 1, 'the grandchild is linked to the child');
    await allowed.env.dispose();
  });
});
