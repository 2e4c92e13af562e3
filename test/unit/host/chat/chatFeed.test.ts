/** The chat view's feed: the whole state once, then each patch of the state as it is made; nothing pulled, nothing on a timer. */
import { strict as assert } from 'assert';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { SessionInfo } from '../../../../src/core/ports/sessionStore';
import { ChatFeed } from '../../../../src/host/chat/chatFeed';
import type { ShownSession } from '../../../../src/host/sessionState/sessionPorts';
import type { SessionState } from '../../../../src/host/sessionState/sessionState';
import type { ChatTurnFiles, HostToChat } from '../../../../src/protocol/chat';
import { agent, stateOf } from '../../../support/sessionStates';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });
const info = (id: string, title: string, updatedAt = 1): SessionInfo => ({ id, title, createdAt: 1, updatedAt }) as SessionInfo;

function shown(state: SessionState): ShownSession {
  return { info: info(state.sessionId, 'a session'), state, reads: {} as never };
}

/** A feed over `session`, with a session list and turn files the test changes, and every message it posted. */
function feedOf(first: ShownSession) {
  const posted: HostToChat[] = [];
  let session = first;
  let sessions = [info(first.info.id, 'a session')];
  let turnFiles: ChatTurnFiles[] = [];
  const firstShown: string[] = [];
  const feed = new ChatFeed({
    post: (message) => void posted.push(JSON.parse(JSON.stringify(message)) as HostToChat),
    showing: async () => session,
    sessions: async () => sessions,
    turnFiles: async () => turnFiles,
    firstStateShown: (s) => void firstShown.push(s.info.id),
    log: (message) => assert.fail(message),
  });
  return {
    feed,
    posted,
    firstShown,
    show: (next: ShownSession) => (session = next),
    setSessions: (list: SessionInfo[]) => (sessions = list),
    setTurnFiles: (files: ChatTurnFiles[]) => (turnFiles = files),
  };
}

describe("the chat's feed: what the chat webview is sent", () => {
  it('posts the whole state when the webview is ready, then each change as the state makes it: a delta as text, an entry as a patch', async () => {
    const state = stateOf([visible(userMessage('Hi', { id: 'u1', createdAt: 1 }))]);
    const { feed, posted, firstShown } = feedOf(shown(state));
    // Made before the webview holds anything: in the whole state, not posted on its own.
    state.apply(agent({ type: 'turn_start', userMessageId: 'u1' }));
    assert.equal(posted.length, 0);
    await feed.whole();
    assert.deepEqual(posted.map((m) => m.type), ['state']);
    assert.equal((posted[0] as Extract<HostToChat, { type: 'state' }>).state.busy, true);
    assert.deepEqual(firstShown, ['s'], 'the controller hears the first state is shown');

    posted.length = 0;
    state.apply(agent({ type: 'text_delta', text: 'Hello' }));
    state.apply(agent({ type: 'text_delta', text: ' there.' }));
    assert.deepEqual(posted.filter((m) => m.type === 'delta'), [{ type: 'delta', entryId: 'streaming', text: 'Hello' }, { type: 'delta', entryId: 'streaming', text: ' there.' }], 'each delta as it streams, in order');
    posted.length = 0;
    state.apply({ kind: 'change', change: { type: 'messages', appended: [visible(assistantMessage('Hello there.', [], { id: 'a1', createdAt: 2 }))], replaced: [] } });
    assert.equal(posted.length, 1);
    const update = posted[0] as Extract<HostToChat, { type: 'update' }>;
    assert.deepEqual(update.patch?.upserts.map((e) => e.id), ['a1']);
    assert.deepEqual(update.patch?.tail, ['assistant:a1'], 'the streaming entry is gone from the list in the same update');
    state.apply(agent({ type: 'turn_end', stopReason: 'end_turn' }));
    assert.equal((posted.at(-1) as Extract<HostToChat, { type: 'update' }>).state?.busy, false);
  });

  it('another session shown: its whole state, and the patches of the session before are not posted any more', async () => {
    const first = stateOf([visible(userMessage('one', { id: 'u1', createdAt: 1 }))]);
    const second = stateOf([visible(userMessage('two', { id: 'u2', createdAt: 1 }))]);
    const { feed, posted, show } = feedOf(shown(first));
    await feed.whole();
    show(shown(second));
    await feed.show(shown(second));
    posted.length = 0;
    first.apply(agent({ type: 'turn_start', userMessageId: 'u1' }));
    assert.equal(posted.length, 0, 'the session no longer shown says nothing');
    second.apply(agent({ type: 'turn_start', userMessageId: 'u2' }));
    assert.equal(posted.length, 1);
  });

  it('the window\'s lists go with the header when they change, and only then', async () => {
    const state = stateOf([]);
    const { feed, posted, setSessions, setTurnFiles } = feedOf(shown(state));
    await feed.whole();
    posted.length = 0;
    setSessions([info('s', 'renamed', 2), info('t', 'other', 3)]);
    await feed.sessionsChanged();
    const update = posted[0] as Extract<HostToChat, { type: 'update' }>;
    assert.deepEqual(update.state?.sessions?.map((s) => s.title), ['other', 'renamed'], 'newest first');
    assert.equal(update.patch, undefined, 'the entries did not change');
    setTurnFiles([{ messageId: 'u1', files: 2 }]);
    await feed.turnFilesChanged();
    assert.deepEqual((posted[1] as Extract<HostToChat, { type: 'update' }>).state?.turnFiles, [{ messageId: 'u1', files: 2 }]);
  });
});
