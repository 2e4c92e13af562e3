import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');

function open(store: SessionStore, sessionId: string) {
  return ContextSession.open({ store, sessionId, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 4_000 }), counter });
}

const ids = (messages: readonly { id: string }[]) => messages.map((m) => m.id);

describe('rewinding a session to before a user message', function () {
  this.timeout(60_000);

  it('sets the working context to exactly what it was before the message, records the step, and a resume starts from it', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'rewind' });
      const session = await open(store, id);
      await session.appendUser('read the config');
      await session.appendAssistant('The config sets the port to 8080.');
      const beforeTarget = ids(session.messages);
      const target = await session.appendUser('fix the test');
      await session.appendAssistant('I changed the assertion.');
      await session.appendUser('now run it');
      await session.appendAssistant('It passes.');
      const changes: string[] = [];
      session.onChange((change) => changes.push(change.type));

      const record = await session.rewind(target.id);

      assert.deepEqual(ids(session.messages), beforeTarget, 'the working context is what preceded the message');
      assert.equal(record.trigger, 'rewind');
      assert.deepEqual(record.step, { kind: 'rewind', messageId: target.id });
      assert.equal(record.messagesBefore - record.messagesAfter, 4, 'four messages were set aside');
      assert.ok(record.tokensAfter < record.tokensBefore);
      assert.deepEqual(changes, ['compaction'], 'the views are told of the entry');
      assert.equal((await store.loadTranscript(id)).length, 6, 'the transcript keeps everything');
      assert.deepEqual((await store.listCompactionEvents(id)).map((e) => e.step?.kind), ['rewind'], 'the history holds the step');

      await assert.rejects(session.rewind(target.id), /an earlier rewind set it aside/, 'a message set aside cannot be rewound to again');
      await session.appendUser('fix the test, but keep the old name');
      await store.flush();
      const resumed = await open(store, id);
      assert.deepEqual(ids(resumed.messages), [...beforeTarget, session.messages[session.messages.length - 1].id], 'a resume starts from the rewound context and what came after');
    } finally {
      await temp.dispose();
    }
  });

  it('refuses a message a compaction summarized away, and one that is not a user message, changing nothing', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'refused' });
      const session = await open(store, id);
      await session.appendUser('first');
      const reply = await session.appendAssistant('answer');
      const before = ids(session.messages);
      await assert.rejects(session.rewind('m-gone'), /a compaction summarized it/);
      await assert.rejects(session.rewind(reply.id), /Only a message you sent/);
      assert.deepEqual(ids(session.messages), before);
      assert.deepEqual(await store.listCompactionEvents(id), []);
    } finally {
      await temp.dispose();
    }
  });

  it('records a restore of files as a step that leaves the context unchanged', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'restore' });
      const session = await open(store, id);
      const user = await session.appendUser('edit two files');
      const before = ids(session.messages);
      const record = await session.recordStep({ kind: 'restore', messageId: user.id, checkpointId: 'k1', files: ['a.txt', 'b.txt'] });
      assert.equal(record.trigger, 'restore');
      assert.deepEqual(record.step?.files, ['a.txt', 'b.txt']);
      assert.equal(record.messagesBefore, record.messagesAfter);
      assert.deepEqual(ids(session.messages), before);
      assert.deepEqual((await store.listCompactionEvents(id)).map((e) => e.trigger), ['restore']);
    } finally {
      await temp.dispose();
    }
  });
});
