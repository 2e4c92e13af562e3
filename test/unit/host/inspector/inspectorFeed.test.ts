/** The inspector's feed: the whole state once, then each change it shows, one post after another, none for what it does not show. */
import { strict as assert } from 'assert';
import type { ContextBudget } from '../../../../src/core/accounting/budget';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { RequestUsageRecord } from '../../../../src/core/model/records';
import type { SessionInfo, SessionStore } from '../../../../src/core/ports/sessionStore';
import { InspectorFeed } from '../../../../src/host/inspector/inspectorFeed';
import { InspectorSubject } from '../../../../src/host/inspector/subagentSubject';
import type { WorkingContext } from '../../../../src/host/sessionState/sessionInputs';
import type { ActiveSession } from '../../../../src/host/sessionState/sessionPorts';
import { DEFAULT_SETTINGS } from '../../../../src/core/settings';
import type { HostToInspector } from '../../../../src/protocol/inspector';
import { agent, stateOf } from '../../../support/sessionStates';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });
const delegate = { id: 'call_d', name: 'delegate', arguments: '{"task":"look"}' };

function usage(requestIndex: number, createdAt: number): RequestUsageRecord {
  return { id: `r${requestIndex}`, sessionId: 's', requestIndex, createdAt, model: 'm', contextWindow: 100_000, maxOutputTokens: 1_000, estimatedInputTokens: 1_000, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as RequestUsageRecord;
}

function resumed(): ActiveSession {
  const state = stateOf([visible(userMessage('Look around.', { id: 'u1', createdAt: 1 }))]);
  const budget = { used: 1_000, effectiveWindow: 90_000, compactAtTokens: 70_000, blockAtTokens: 85_000, percent: 1.1, estimated: 1_000, shouldCompact: () => false, isBlocked: () => false } as unknown as ContextBudget;
  const context: WorkingContext = { measure: () => budget, planNextRequest: () => ({ messages: [], items: [], budget, repaired: 0 }) as never, calibration: { view: () => ({ factor: 1, error: 0, samples: 0 }) }, messages: [], fixed: {} };
  state.apply({ kind: 'resumed', context });
  return { info: { id: 's', title: 'a session', createdAt: 1, updatedAt: 1 } as SessionInfo, state, contextSession: context as never, reads: {} as never };
}

describe("the inspector's feed: what the inspector webview is sent", () => {
  it('posts nothing for what it does not show; a write posts what it touched; while a post waits for the subagents, later writes join the next post', async () => {
    const session = resumed();
    let release!: () => void;
    let listings = 0;
    const held = new Promise<void>((resolve) => (release = resolve));
    const store = { listSessions: async () => (listings++, await held, []), onSessionsChanged: () => () => undefined } as unknown as SessionStore;
    const posted: HostToInspector[] = [];
    const feed = new InspectorFeed({ post: (m) => void posted.push(m), current: async () => session, store: async () => store }, new InspectorSubject({ store: async () => store, settings: () => DEFAULT_SETTINGS }));
    release();
    await feed.whole();
    assert.deepEqual(posted.map((m) => m.type), ['state']);

    posted.length = 0;
    session.state.apply(agent({ type: 'turn_start', userMessageId: 'u1' }));
    session.state.apply(agent({ type: 'text_delta', text: 'Looking' }));
    await feed.settled();
    assert.equal(posted.length, 0, 'a turn starting and text streaming: nothing the inspector shows');

    // A delegate call: the subagents are read (held), and two writes come meanwhile.
    let letRead!: () => void;
    const reading = new Promise<void>((resolve) => (letRead = resolve));
    (store as { listSessions: () => Promise<unknown[]> }).listSessions = async () => (listings++, await reading, []);
    session.state.apply({ kind: 'change', change: { type: 'messages', appended: [visible(assistantMessage('Asking a subagent.', [delegate], { id: 'a1', createdAt: 2 }))], replaced: [] } });
    session.state.apply({ kind: 'change', change: { type: 'usage', record: usage(0, 3) } });
    session.state.apply({ kind: 'change', change: { type: 'usage', record: usage(1, 4) } });
    assert.equal(posted.length, 0, 'the first post waits for the subagents');
    letRead();
    await feed.settled();
    // The post made once the subagents were read carries what was written meanwhile; their figures are read again for the requests.
    assert.deepEqual(posted.map((m) => m.type), ['update', 'update']);
    const [first, second] = posted as Array<Extract<HostToInspector, { type: 'update' }>>;
    assert.deepEqual(first.requests.upserts.map((r) => r.requestIndex), [0, 1], 'both requests in the first post');
    assert.deepEqual(second.requests.upserts, [], 'no request travels twice');
    assert.equal(listings, 2, 'the whole state, then one read for the delegate call and the requests written meanwhile');
  });
});
