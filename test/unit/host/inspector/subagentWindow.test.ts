/**
 * The inspector's way into a subagent's window, over a real delegation (a fake OpenAI server on
 * 127.0.0.1, a real sql.js store): only a subagent of the session shown opens, its requests are the
 * subagent's, and the spared figure is the same number the chat's card shows.
 */
import { strict as assert } from 'assert';
import { subagentOrigin, subagentSessions, totalsWithSubagents } from '../../../../src/core/agent/subagents/sessionLink';
import { withSettings } from '../../../../src/core/settings';
import { inspectorHandlers } from '../../../../src/host/inspector/inspectorIntents';
import { buildInspectorState } from '../../../../src/host/inspector/inspectorState';
import { InspectorSubject, SUBAGENT_READ_ONLY } from '../../../../src/host/inspector/subagentSubject';
import { subagentSummaries } from '../../../../src/host/inspector/subagentSummaries';
import type { ActiveSession } from '../../../../src/host/sessionState/sessionPorts';
import { SessionState } from '../../../../src/host/sessionState/sessionState';
import { subagentUsage } from '../../../../src/host/sessionState/subagentUsage';
import type { HostToInspector, InspectorToHost } from '../../../../src/protocol/inspector';
import { receiveWebviewMessage } from '../../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../../src/protocol/validate';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { FakeReply, RecordedRequest } from '../../../fakes/scriptedServer';
import { firstUser, subagentHarness, toolResults } from '../../core/agent/subagents/subagentHarness';
import { resumedSession } from '../../../support/sessionStates';

const delegateCall = (task: string) => ({ toolCall: { name: 'delegate', arguments: JSON.stringify({ task }) } });

function script(request: RecordedRequest): FakeReply {
  const user = firstUser(request);
  if (user.startsWith('USER:')) {
    return toolResults(request) === 0
      ? { type: 'reply', parts: [{ text: 'Asking two subagents.' }, delegateCall('TASK alpha: find the parser'), delegateCall('TASK beta: find the writer')], usage: { input: 1_000, output: 30 } }
      : { type: 'reply', parts: [{ text: 'Both reported.' }], usage: { input: 1_400, output: 8 } };
  }
  const who = user.includes('alpha') ? 'ALPHA' : 'BETA';
  return toolResults(request) === 0
    ? { type: 'reply', parts: [{ toolCall: { name: 'echo', arguments: JSON.stringify({ text: `${who} looked`, big: 40 }) } }], usage: { input: who === 'ALPHA' ? 700 : 650, output: 12 } }
    : { type: 'reply', parts: [{ text: `${who} report: it is in src/${who.toLowerCase()}.ts:7` }], usage: { input: who === 'ALPHA' ? 1_900 : 1_700, output: 20 } };
}

describe('inspector: a subagent\'s window and what subagents spared the main one', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => server?.close());

  async function delegated() {
    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: script }).start();
    const h = await subagentHarness({ server });
    // The chat's card, fed the turn's events as the controller feeds them (read while the turn is live).
    const tracker = new SessionState({ info: { id: h.contextSession.sessionId, title: 'parent' } });
    h.agent.on((event) => {
      if (event.type !== 'turn_end') tracker.apply({ kind: 'agent', event });
    });
    assert.equal(await h.agent.send('USER: where are the parser and the writer?'), 'end_turn');
    const store = h.env.store;
    const info = (await store.getSession(h.contextSession.sessionId))!;
    const main = await resumedSession(store, info, h.contextSession);
    const children = await subagentSessions(store, info.id);
    assert.equal(children.length, 2);
    return { h, store, main, children, tracker };
  }

  function inspector(main: ActiveSession, store: Awaited<ReturnType<typeof delegated>>['store']) {
    const subject = new InspectorSubject({ store: async () => store, settings: () => withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 }) });
    const posted: HostToInspector[] = [];
    const errors: string[] = [];
    const controller = { current: async () => main, store: async () => store, setPinned: async () => true, preview: async () => assert.fail('no preview'), compact: async () => assert.fail('no compaction') } as never;
    const handlers = inspectorHandlers({
      sessions: subject.actions(controller),
      subagents: { open: (sessionId) => subject.open(main, sessionId), back: () => subject.back() },
      post: (m) => void posted.push(m),
      sendState: async () => undefined,
      showEarlier: async () => undefined,
      executeCommand: async () => undefined,
      showInformation: () => undefined,
    });
    const send = async (message: InspectorToHost | Record<string, unknown>) => {
      await receiveWebviewMessage(message, { source: 'inspector', parse: parseInspectorMessage, log: { warn: (text: string) => void errors.push(`invalid: ${text}`) }, handlers, onError: (e: unknown) => void errors.push(e instanceof Error ? e.message : String(e)) });
    };
    return { subject, posted, errors, send, shown: () => subject.shown(main) };
  }

  it('opens only a subagent of the session shown: never a session the webview names at will', async () => {
    const { store, main, children } = await delegated();
    const { errors, send, shown } = inspector(main, store);
    const unrelated = await store.createSession({ title: 'someone else\'s work' });
    const othersChild = await store.createSession({ title: 'general: not yours', origin: subagentOrigin({ parentSessionId: unrelated.id, parentCallId: 'call_x', agent: 'general' }) });
    for (const sessionId of [unrelated.id, othersChild.id, main.info.id, 'no-such-session']) {
      errors.length = 0;
      await send({ type: 'openSubagent', sessionId });
      assert.equal(shown(), main, `${sessionId} was not opened`);
      assert.deepEqual(errors, ['That session is not a subagent of the session shown; nothing was opened.']);
    }
    errors.length = 0;
    await send({ type: 'openSubagent', sessionId: children[0].info.id });
    assert.deepEqual(errors, []);
    assert.equal(shown().info.id, children[0].info.id);
    // From inside a subagent's window, its sibling is not "a subagent of the session shown".
    await send({ type: 'openSubagent', sessionId: children[1].info.id });
    assert.equal(shown().info.id, children[0].info.id);
    assert.equal(errors.length, 1);
  });

  it("shows the subagent's own requests, items and header, is read-only there, and goes back", async () => {
    const { store, main, children, h } = await delegated();
    const { subject, posted, errors, send, shown } = inspector(main, store);
    const alpha = children.find((c) => c.info.title.includes('alpha'))!;
    await send({ type: 'openSubagent', sessionId: alpha.info.id });
    const state = buildInspectorState(shown());
    assert.equal(state.session?.id, alpha.info.id);
    assert.deepEqual(state.requests.map((t) => t.reportedInputTokens), [700, 1_900], "the subagent's two requests, as its provider reported them");
    assert.deepEqual(subject.header(main), { agent: 'general', task: 'TASK alpha: find the parser', parentSessionId: main.info.id, parentTitle: 'parent', depth: 1 });

    await send({ type: 'selectRequest', requestIndex: 1 });
    const items = posted.find((m): m is Extract<HostToInspector, { type: 'requestItems' }> => m.type === 'requestItems')!;
    assert.ok(items.items.some((i) => i.preview.includes('TASK alpha')), "the request's items are the subagent's: its task is its user message");
    assert.ok(items.items.some((i) => i.toolName === 'echo' && i.role === 'tool'), 'with its own tool results, which the parent never saw');

    await send({ type: 'pin', messageId: h.contextSession.messages[0].id, pinned: true });
    assert.deepEqual(errors, [SUBAGENT_READ_ONLY]);

    await send({ type: 'closeSubagent' });
    assert.equal(shown(), main);
    assert.equal(subject.header(main), undefined);
  });

  it('states one spared figure: the chat card\'s "read", the inspector\'s sums, and what came back as the parent\'s tool results carry it', async () => {
    const { store, main, children, tracker, h } = await delegated();
    const summary = (await subagentSummaries(store, { sessionId: main.info.id, usage: main.state.records.usageFigures, messages: [main.state.records.heldMessages] }))!;
    const cards = tracker.live?.subagents;
    assert.ok(cards && cards.size === 2);
    for (const row of summary.list) {
      assert.equal(cards.get(row.callId)?.read, row.read, `the card and the inspector read the same figure for ${row.task}`);
    }
    assert.deepEqual(summary.list.map((r) => r.read).sort(), [650 + 1_700, 700 + 1_900].sort());
    assert.equal(summary.spared.read, 700 + 1_900 + 650 + 1_700);
    // Came back: each report as an item of the parent's next request, token for token.
    const lastParentRequest = (await store.requestUsageAt(main.info.id, 1))!;
    let back = 0;
    for (const row of summary.list) {
      const item = lastParentRequest.items.find((i) => i.messageId === row.resultMessageId);
      assert.ok(item, 'the report is an item of the parent request that carried it');
      assert.equal(row.cameBack, item.tokens);
      back += item.tokens;
    }
    assert.equal(summary.spared.cameBack, back);
    // Totals: the session's own requests with its subagents', as the store's totals helper sums them.
    const totals = await totalsWithSubagents(store, main.info.id);
    assert.deepEqual(summary.total, { requests: totals.requests, inputTokens: totals.inputTokens, outputTokens: totals.outputTokens });
    assert.deepEqual(summary.share, { requests: 4, inputTokens: summary.spared.read, outputTokens: 12 + 20 + 12 + 20 });
    assert.equal(children.length, summary.spared.subagents);

    // The chat's turn line includes the subagents' requests and says their share: the inspector's share, exactly.
    main.state.apply({ kind: 'subagentUsage', records: await subagentUsage(store, main.info.id) });
    // The same requests reported live while the turn ran are not counted twice.
    main.state.apply({ kind: 'subagentUsage', records: h.progress().flatMap((p) => (p.kind === 'usage' ? [p.record] : [])) });
    const line = main.state.entries.lastTurnFigures();
    assert.ok(line?.kind === 'usage');
    assert.deepEqual(line.usage.subagents, { requests: summary.share.requests, inputTokens: summary.share.inputTokens, outputTokens: summary.share.outputTokens });
    assert.equal(line.usage.requests, summary.total.requests, "the turn's requests incl. subagents");
    assert.equal(line.usage.inputTokens, summary.total.inputTokens);
    assert.equal(line.usage.lastRequestTokens, 1_400, "the last request is the session's own");
  });

  it("a subagent's window opened while it runs follows its requests to the end", async () => {
    const release: Array<() => void> = [];
    let asked!: () => void;
    const askedOnce = new Promise<void>((resolve) => (asked = resolve));
    server = await new FakeOpenAIServer({
      apiKey: 'sk-test',
      fallback: (request) => {
        const user = firstUser(request);
        if (user.startsWith('USER:')) {
          return toolResults(request) === 0
            ? { type: 'reply', parts: [{ toolCall: { name: 'delegate', arguments: JSON.stringify({ task: 'TASK gamma: run the thing', agent: 'runner' }) } }], usage: { input: 1_000, output: 30 } }
            : { type: 'reply', parts: [{ text: 'Done.' }], usage: { input: 1_300, output: 5 } };
        }
        return toolResults(request) === 0
          ? { type: 'reply', parts: [{ toolCall: { name: 'run_it', arguments: '{}' } }], usage: { input: 800, output: 10 } }
          : { type: 'reply', parts: [{ text: 'GAMMA ran it.' }], usage: { input: 950, output: 6 } };
      },
    }).start();
    // The subagent's command waits for the user's approval: the window is opened then, mid-run.
    const runner = { name: 'runner', description: 'Runs the thing', tools: ['run_it'], instructions: 'Run it.', path: '/agents/runner.md', origin: 'user' as const };
    const h = await subagentHarness({ server, agents: [runner], ask: () => new Promise((resolve) => (asked(), release.push(() => resolve({ approved: true })))) });
    const store = h.env.store;
    const info = (await store.getSession(h.contextSession.sessionId))!;
    const main: ActiveSession = await resumedSession(store, info, h.contextSession);
    const { subject, send, shown } = inspector(main, store);
    const followed: Array<Promise<boolean>> = [];
    h.agent.on((event) => {
      if (event.type === 'subagent') followed.push(subject.follow(main, event.progress));
    });
    const turn = h.agent.send('USER: run the thing in a subagent');
    await askedOnce;
    const [gamma] = await subagentSessions(store, info.id);
    await send({ type: 'openSubagent', sessionId: gamma.info.id });
    assert.equal(shown().info.id, gamma.info.id);
    assert.deepEqual(buildInspectorState(shown()).requests.map((t) => t.reportedInputTokens), [800], 'one request so far');

    release.forEach((r) => r());
    assert.equal(await turn, 'end_turn');
    assert.ok((await Promise.all(followed)).some(Boolean), 'the window was read again as the subagent went on');
    const state = buildInspectorState(shown());
    assert.equal(state.session?.id, gamma.info.id, 'still the subagent\'s window');
    assert.deepEqual(state.requests.map((t) => t.reportedInputTokens), [800, 950], 'its second request is shown without reopening it');
    assert.ok(shown().state.records.heldMessages.some((m) => m.content.includes('GAMMA ran it.')), 'and its final answer');
  });
  it("a subagent's window shown while 50 progress reports come in is read a few times, not once per report, and shows the end", async () => {
    const { store, main, children } = await delegated();
    const alpha = children.find((c) => c.info.title.includes('alpha'))!;
    // Store reads about the subagent's session, counted.
    let reads = 0;
    const counted = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (args[0] === alpha.info.id) reads++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    // A clock the test moves: a report every 200 ms, 10 s of a run.
    let now = 0;
    let timers: Array<{ at: number; run: () => void }> = [];
    const clock = {
      now: () => now,
      later: (run: () => void, ms: number) => {
        const timer = { at: now + ms, run };
        timers.push(timer);
        return () => void (timers = timers.filter((t) => t !== timer));
      },
    };
    const subject = new InspectorSubject({ store: async () => counted, settings: () => withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 }), clock });
    await subject.open(main, alpha.info.id);
    const opened = reads;
    assert.ok(opened > 0);
    const followed: Array<Promise<boolean>> = [];
    for (let i = 0; i < 50; i++) {
      now += 200;
      for (const timer of timers.filter((t) => t.at <= now)) {
        timers = timers.filter((t) => t !== timer);
        timer.run();
      }
      followed.push(subject.follow(main, { sessionId: alpha.info.id, kind: i % 2 ? 'usage' : 'request' }));
      // Reports come seconds apart in a real run: each one's read (if any) is over before the next.
      await (typeof subject.idle === 'function' ? Promise.race([subject.idle(), followed[i]]) : followed[i]);
    }
    followed.push(subject.follow(main, { sessionId: alpha.info.id, kind: 'ended' }));
    assert.ok((await Promise.all(followed)).every(Boolean), 'every report is in a read of the window');
    const windowReads = (reads - opened) / opened;
    // One read, then one per second of reports (10 s), and the end: 12 at most, against 51 (one per report).
    assert.ok(windowReads <= 12, `${windowReads} reads of the window for 51 reports`);
    assert.equal(subject.shown(main).info.id, alpha.info.id, "still the subagent's window");
    assert.deepEqual(buildInspectorState(subject.shown(main)).requests.map((t) => t.reportedInputTokens), [700, 1_900], 'its requests, as read at the end');
  });
});
