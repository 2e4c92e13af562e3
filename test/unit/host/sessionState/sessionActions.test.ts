/** What the user does to the open session, with plain objects for the lifecycle and the agent: messages kept while they cannot go out, Retry. */
import { strict as assert } from 'assert';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { SessionActions } from '../../../../src/host/sessionState/sessionActions';
import type { ActiveSession, SessionLifecycle, ShownSession } from '../../../../src/host/sessionState/sessionPorts';
import type { SessionState } from '../../../../src/host/sessionState/sessionState';
import { agent, stateOf } from '../../../support/sessionStates';

/** An event hub as the lifecycle's events are. */
function hub<T>() {
  const listeners = new Set<(value: T) => void>();
  return {
    on: (listener: (value: T) => void) => (listeners.add(listener), { dispose: () => void listeners.delete(listener) }),
    fire: (value: T) => listeners.forEach((l) => l(value)),
  };
}

function session(state: SessionState, agentSend?: (text: string) => Promise<unknown>): ActiveSession {
  const agentLike = agentSend && { busy: false, send: agentSend, cancel() {}, dispose() {} };
  return { info: { id: state.sessionId, title: 'a session' } as ActiveSession['info'], state, reads: {} as never, contextSession: { messages: [] } as never, ...(agentLike ? { agent: agentLike as never } : {}) };
}

function lifecycleOf(first: ActiveSession) {
  const shows = hub<ShownSession>();
  const resumes = hub<ActiveSession>();
  const store = { updateSession: async () => undefined } as unknown as SessionStore;
  let active = first;
  const lifecycle: SessionLifecycle = {
    get active() {
      return active;
    },
    get shown() {
      return active;
    },
    resuming: false,
    current: async () => active,
    showing: async () => active,
    firstStateShown: () => undefined,
    create: async () => active,
    open: async () => active,
    store: async () => store,
    isAttached: (s) => s === active,
    onDidShow: shows.on,
    onDidResume: resumes.on,
    onAgentEvent: hub<never>().on,
  };
  const open = (next: ActiveSession) => {
    active = next;
    shows.fire(next);
    resumes.fire(next);
  };
  return { lifecycle, open };
}

const log = { info: () => undefined, error: (message: string) => assert.fail(message) };
const pendingEntries = (state: SessionState) => state.chatEntries().filter((e) => e.kind === 'user' && e.pending).map((e) => e.id);

describe('the session actions', () => {
  it('keeps a message sent with no model in the chat, and sends it once a session with a model resumes: the chat no longer shows it waiting', async () => {
    const noModel = session(stateOf([], {}, { unavailable: 'No model is configured.' }));
    const { lifecycle, open } = lifecycleOf(noModel);
    const actions = new SessionActions(lifecycle, { resolveApproval: () => undefined }, log);
    await actions.send('Explain the loader.');
    assert.deepEqual(pendingEntries(noModel.state), ['pending']);
    assert.equal(actions.pendingMessage, 'Explain the loader.');

    const sent: string[] = [];
    const withModel = session(stateOf([], {}, { model: { id: 'm', label: 'M' } }), async (text) => void sent.push(text));
    open(withModel);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.deepEqual(sent, ['Explain the loader.']);
    assert.deepEqual(pendingEntries(withModel.state), [], 'the message left the chat\'s waiting entries once sent');
    assert.equal(actions.pendingMessage, undefined);
    actions.dispose();
  });

  it('Discard drops the kept message from the chat', async () => {
    const noModel = session(stateOf([], {}, { unavailable: 'No model is configured.' }));
    const { lifecycle } = lifecycleOf(noModel);
    const actions = new SessionActions(lifecycle, { resolveApproval: () => undefined }, log);
    await actions.send('Explain the loader.');
    actions.discardPendingMessage();
    assert.deepEqual(pendingEntries(noModel.state), []);
    assert.equal(noModel.state.header().banner, 'No model is configured.', 'the banner comes back');
  });

  it('offers Retry after a failed turn, and a rewind takes it away', () => {
    const state = stateOf([], {}, { model: { id: 'm', label: 'M' } });
    const { lifecycle } = lifecycleOf(session(state, async () => undefined));
    const actions = new SessionActions(lifecycle, { resolveApproval: () => undefined }, log);
    state.apply(agent({ type: 'turn_start', userMessageId: 'u1' }));
    state.apply(agent({ type: 'error', message: 'boom', kind: 'server' }));
    state.apply(agent({ type: 'turn_end', stopReason: 'error' }));
    assert.equal(actions.canRetry, true);
    actions.forgetEndedTurn();
    assert.equal(actions.canRetry, false);
  });
});
