/**
 * Plan mode in the chat, end to end through the host: the switch, a plan-mode turn through the one
 * agent builder against a fake OpenAI server, the plan's card folded from the stored messages, and
 * what Edit, Approve and Discard record and send. A real store, a real working context.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { AgentSession } from '../../../../src/core/agent/agentSession';
import { buildAgent } from '../../../../src/core/agent/build/buildAgent';
import { BUILTIN_TOOLS, SESSION_TOOLS } from '../../../../src/core/agent/build/toolSources';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { withSettings } from '../../../../src/core/settings';
import { SessionApprovals } from '../../../../src/core/tools/sessionApprovals';
import { SessionActions } from '../../../../src/host/sessionState/sessionActions';
import type { ActiveSession, SessionLifecycle } from '../../../../src/host/sessionState/sessionPorts';
import type { ChatEntry } from '../../../../src/protocol/chat';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import type { RecordedRequest } from '../../../fakes/scriptedServer';
import { HeldChat, openState, resumedSession } from '../../../support/sessionStates';
import { sessionPerTest } from '../../../support/tempStore';
import { TEST_LIMITS } from '../../../support/toolRegistry';
import { offeredTools } from '../../core/agent/subagents/subagentHarness';

const PLAN = '1. Read src/parser.ts.\n2. Fix the off-by-one in `next()`.\n3. Run the parser tests.';
const EDITED = '1. Read src/parser.ts.\n2. Fix the off-by-one in `next()` and add a test for an empty input.\n3. Run the parser tests.';
const settings = withSettings({ contextWindow: 32_000, maxOutputTokens: 1_000 });
const sentMessages = (request: RecordedRequest) => request.body.messages as Array<{ role: string; content: unknown }>;
const plans = (entries: readonly ChatEntry[]) => entries.flatMap((e) => (e.kind === 'assistant' && e.plan ? [{ id: e.id, ...e.plan }] : []));

describe('plan mode in the chat', function () {
  this.timeout(60_000);
  const env = sessionPerTest('plan mode');
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await new FakeOpenAIServer({ apiKey: 'sk-test', fallback: () => ({ type: 'reply', parts: [{ text: 'Done.' }] }) }).start();
  });
  afterEach(async () => server.close());

  /** The chat's open session as the controller makes it: its state fed by its writes and its agent's events, its agent's mode the state's. */
  async function chatSession(): Promise<{ session: ActiveSession; actions: SessionActions; chat: HeldChat }> {
    const store = env.store();
    const counter = getTokenCounter();
    const contextSession = await ContextSession.open({ store, sessionId: env.sessionId(), settings, counter });
    const session = await resumedSession(store, (await store.getSession(env.sessionId()))!, contextSession);
    const agent: AgentSession = buildAgent({
      contextSession,
      store,
      model: { provider: createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server.url, retry: { maxAttempts: 1, sleep: async () => undefined } }), id: 'test-model', maxOutputTokens: 1_000, counter },
      settings,
      tools: [BUILTIN_TOOLS, SESSION_TOOLS],
      mode: () => (session.state.plans.turnInPlanMode ? 'plan' : 'act'),
      environment: {
        workspace: () => new NodeWorkspace({ folders: [env.folder()], trusted: true }),
        approvals: new SessionApprovals({ policy: () => ({ commands: 'ask', edits: 'ask' }), allowedTools: () => [], ask: async () => ({ approved: false }) }),
        limits: TEST_LIMITS,
      },
    });
    agent.on((event) => session.state.apply({ kind: 'agent', event }));
    session.agent = agent;
    const lifecycle = {
      active: session,
      shown: session,
      resuming: false,
      current: async () => session,
      showing: async () => session,
      store: async () => store,
      isAttached: (s: ActiveSession) => s === session,
      onDidShow: () => ({ dispose() {} }),
      onDidResume: () => ({ dispose() {} }),
    } as unknown as SessionLifecycle;
    const actions = new SessionActions(lifecycle, { resolveApproval: () => undefined }, { info: () => undefined, error: (m) => assert.fail(m) });
    return { session, actions, chat: new HeldChat(session.state) };
  }

  it('plans with reads only, shows the plan as a card, and an edited plan approved is what the next request carries, with every tool back', async () => {
    const { session, actions, chat } = await chatSession();
    await actions.setPlanMode(true);
    assert.equal(chat.header.planMode, true, 'the chat says the next message runs in plan mode');

    server.enqueue({ type: 'reply', parts: [{ text: PLAN }] });
    await actions.send('Fix the parser.');
    const planning = server.requests[0];
    assert.ok(!offeredTools(planning).includes('edit_file') && !offeredTools(planning).includes('run_command'), 'no edit or command tool while planning');
    assert.ok(offeredTools(planning).includes('read_file'));
    assert.match(JSON.stringify(planning.body.messages), /You are in plan mode/);
    const [proposed] = plans(chat.entries());
    assert.deepEqual(proposed && { status: proposed.status, text: proposed.text }, { status: 'proposed', text: PLAN });
    assert.equal(chat.header.planMode, true, 'plan mode stays on until the plan is decided');

    await actions.editPlan(proposed.id, EDITED);
    assert.deepEqual(plans(chat.entries())[0], { id: proposed.id, status: 'proposed', text: EDITED, edited: true }, 'the card shows the edit');

    await actions.approvePlan(proposed.id);
    const acting = server.requests[1];
    for (const name of ['edit_file', 'run_command']) assert.ok(offeredTools(acting).includes(name), `${name} is offered again`);
    assert.doesNotMatch(JSON.stringify(acting.body.messages), /You are in plan mode/);
    const sent = sentMessages(acting).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    assert.ok(sent.some((text) => text.includes(EDITED)), 'the request carries the edited plan');
    assert.ok(!sent.some((text) => text.includes('Fix the off-by-one in `next()`.\n')), 'not the plan as first proposed');
    assert.match(sent.at(-1) ?? '', /edited and approved the plan above/);
    assert.deepEqual(plans(chat.entries())[0], { id: proposed.id, status: 'approved', text: EDITED, edited: true });
    assert.equal(chat.header.planMode, undefined, 'the approved plan runs in normal mode, and so does the next message');

    const usage = (await env.store().listRequestUsage(env.sessionId())).at(-1)!;
    assert.ok((usage.components.plan ?? 0) > 0, 'the inspector has the plan as an owner of its own');
    const item = usage.items.find((i) => i.kind === 'plan');
    assert.equal(item?.label, 'Plan: approved plan');

    const reopened = await openState(env.store(), env.sessionId());
    assert.deepEqual(plans(reopened.chatEntries()), plans(chat.entries()), 'a session opened again shows the same card');
    await assert.rejects(actions.approvePlan(proposed.id), /cannot be approved/);
    assert.equal(server.requests.length, 2, 'a plan approved twice is carried out once');
    assert.equal(session.state.plans.planMode, false);
  });

  it('Discard records it and keeps plan mode on: the next message plans again', async () => {
    const { actions, chat } = await chatSession();
    await actions.setPlanMode(true);
    server.enqueue({ type: 'reply', parts: [{ text: PLAN }] });
    await actions.send('Fix the parser.');
    const [proposed] = plans(chat.entries());
    await actions.discardPlan(proposed.id);
    assert.equal(plans(chat.entries())[0].status, 'discarded');
    assert.equal(chat.header.planMode, true);
    await assert.rejects(actions.approvePlan(proposed.id), /cannot be approved/);

    server.enqueue({ type: 'reply', parts: [{ text: '1. Only read the tests first.' }] });
    await actions.send('Try a smaller plan.');
    assert.match(JSON.stringify(server.requests.at(-1)!.body.messages), /You are in plan mode/);
    assert.deepEqual(plans(chat.entries()).map((p) => p.status), ['discarded', 'proposed']);
    const reopened = await openState(env.store(), env.sessionId());
    assert.deepEqual(plans(reopened.chatEntries()), plans(chat.entries()));
    assert.equal(reopened.chatState().planMode, true, 'a session opened again is still in plan mode');
  });

  it('a plan the user answered with another message instead can no longer be approved, and switching plan mode off runs the next message with every tool', async () => {
    const { actions, chat } = await chatSession();
    await actions.setPlanMode(true);
    server.enqueue({ type: 'reply', parts: [{ text: PLAN }] });
    await actions.send('Fix the parser.');
    const [proposed] = plans(chat.entries());
    await actions.setPlanMode(false);
    assert.equal(chat.header.planMode, undefined);
    await actions.send('Just fix it.');
    assert.ok(offeredTools(server.requests.at(-1)!).includes('edit_file'));
    assert.equal(plans(chat.entries())[0].status, 'passed');
    await assert.rejects(actions.approvePlan(proposed.id), /cannot be approved/);
    await assert.rejects(actions.editPlan(proposed.id, EDITED), /cannot be edited/);
  });
});
