import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { contextMarks } from '../../../../src/core/context/contextMarks';
import { forkSession } from '../../../../src/core/context/forkSession';
import { withSettings } from '../../../../src/core/settings';
import { planMessage } from '../../../../src/core/model/factories';
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
      assert.deepEqual(record.step, { kind: 'rewind', messageId: target.id, setAside: 4 });
      assert.equal(record.messagesBefore - record.messagesAfter, 4, 'four messages were set aside');
      assert.ok(record.tokensAfter < record.tokensBefore);
      assert.deepEqual(changes, ['compaction'], 'the views are told of the entry');
      assert.equal((await store.loadTranscript(id)).length, 6, 'the transcript keeps everything');
      assert.deepEqual((await store.listCompactionEvents(id)).map((e) => e.step?.kind), ['rewind'], 'the history holds the step');

      await assert.rejects(session.rewind(target.id), /An earlier rewind set this message aside/, 'a message set aside cannot be rewound to again');
      await session.appendUser('fix the test, but keep the old name');
      await store.flush();
      const resumed = await open(store, id);
      assert.deepEqual(ids(resumed.messages), [...beforeTarget, session.messages[session.messages.length - 1].id], 'a resume starts from the rewound context and what came after');
    } finally {
      await temp.dispose();
    }
  });

  it('after a compaction that summarized the turns around a user message it kept, rewinding to it keeps the turn before it, and the next request carries that turn', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'compacted' });
      const session = await ContextSession.open({ store, sessionId: id, settings: withSettings({ contextWindow: 16_000, maxOutputTokens: 2_000 }), counter });
      const turn = async (text: string, tool: string, args: string, output: string) => {
        const user = await session.appendUser(text);
        const call = { id: `call-${tool}-${user.id}`, name: tool, arguments: args };
        await session.appendAssistant('', [call]);
        await session.recordToolResult(call, output);
        await session.appendAssistant(`Done: ${text}.`);
        return user;
      };
      const readme = await turn('read README.md', 'read_file', '{"path":"README.md"}', 'Tally is a coding agent. '.repeat(400));
      const readmeTurn = ids(session.messages);
      const agents = await turn('read AGENTS.md', 'read_file', '{"path":"AGENTS.md"}', 'Use strict TypeScript. '.repeat(120));
      await turn('list files', 'list_files', '{}', 'README.md\nAGENTS.md\nsrc/');
      // The latest three results stay whole (what the agent works from): the compaction summarizes the turns before them.
      for (const file of ['package.json', 'tsconfig.json', '.gitignore']) await turn(`read ${file}`, 'read_file', `{"path":"${file}"}`, 'ok');
      const compacted = await session.compact({ trigger: 'manual' });
      assert.equal(compacted.status, 'complete');
      assert.ok(!session.messages.some((m) => m.id === readmeTurn[1]), 'the compaction summarized the README turn');

      await session.rewind(agents.id);
      await session.appendUser('read AGENTS.md');
      const sent = session.planRequest().messages;
      const at = sent.findIndex((m) => m.content === 'read AGENTS.md');
      assert.deepEqual(sent.slice(0, at).map((m) => m.id), readmeTurn, 'the README turn comes before the message sent again, as it was');
      assert.equal(sent[0].id, readme.id);
      const mark = contextMarks(session.messages);
      for (const messageId of readmeTurn) assert.equal(mark(messageId), 'in-context');
      assert.equal(mark(agents.id), 'set-aside');

      await store.flush();
      const resumed = await open(store, id);
      assert.deepEqual(ids(resumed.messages), ids(session.messages), 'a resume gives the same context');
    } finally {
      await temp.dispose();
    }
  });

  it('in a fork, takes apart a summary it carried from the original: the turn before the message comes back from the original, with its stored result', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'original' });
      const session = await ContextSession.open({ store, sessionId: id, settings: withSettings({ contextWindow: 16_000, maxOutputTokens: 2_000, offloadThresholdBytes: 2_000 }), counter });
      const turn = async (text: string, output: string) => {
        const user = await session.appendUser(text);
        const call = { id: `call-${user.id}`, name: 'read_file', arguments: `{"path":"${text.split(' ')[1]}"}` };
        await session.appendAssistant('', [call]);
        await session.recordToolResult(call, output);
        await session.appendAssistant(`Done: ${text}.`);
        return user;
      };
      await turn('read README.md', 'Tally is a coding agent. '.repeat(400));
      const readmeTurn = ids(session.messages);
      const stored = session.messages.find((m) => m.kind === 'tool_result')?.meta?.offloadRef;
      assert.ok(stored, 'the README result was stored whole');
      const agents = await turn('read AGENTS.md', 'Use strict TypeScript. '.repeat(120));
      await turn('list files', 'README.md');
      for (const file of ['package.json', 'tsconfig.json', '.gitignore']) await turn(`read ${file}`, 'ok');
      assert.equal((await session.compact({ trigger: 'manual' })).status, 'complete');
      const request = await session.nextRequest({ fixed: { system: 100, skills: 0, tools: 100 } });
      await session.recordResponse(request, { model: 'test-model' });
      const forked = await forkSession(store, { fromSessionId: id, fromRequestIndex: request.requestIndex }, { working: session.messages });
      const fork = await open(store, forked.info.id);
      assert.ok(!ids(fork.messages).includes(readmeTurn[1]), 'the fork carried the summary, not the README turn');

      await fork.rewind(agents.id);
      assert.deepEqual(ids(fork.messages), readmeTurn, 'the README turn, from the original');
      assert.deepEqual((await store.loadMessages(forked.info.id, readmeTurn)).map((m) => m.id), readmeTurn, 'it joined the fork\'s transcript');
      assert.equal((await store.readBlob(forked.info.id, stored, 0, 16)).offset, 0, 'its stored result is the fork\'s to read');
      await store.flush();
      assert.deepEqual(ids((await open(store, forked.info.id)).messages), readmeTurn, 'a resume of the fork gives the same context');
    } finally {
      await temp.dispose();
    }
  });

  it('rewinding to the message that carried out an approved plan takes the plan out of the context with it', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'rewind a plan' });
      const session = await open(store, id);
      await session.appendUser('plan the fix', [], undefined, 'plan');
      const proposed = await session.appendAssistant('1. Read the parser.\n2. Fix it.');
      const beforeApproval = ids(session.messages);
      const approval = await session.appendUser('I approved the plan above. Carry it out now.', [planMessage('1. Read the parser.\n2. Fix it.', 'approved', { planOf: proposed.id })]);
      await session.appendAssistant('Done.');
      await session.rewind(approval.id);
      assert.deepEqual(ids(session.messages), beforeApproval, 'neither the approval nor the pinned plan it carried stays');
    } finally {
      await temp.dispose();
    }
  });

  it('refuses a message it has no record of, and one that is not a user message, changing nothing', async () => {
    const temp = await tempStore('tally-rewind-');
    try {
      const { store } = temp;
      const { id } = await store.createSession({ title: 'refused' });
      const session = await open(store, id);
      await session.appendUser('first');
      const reply = await session.appendAssistant('answer');
      const before = ids(session.messages);
      await assert.rejects(session.rewind('m-gone'), /no record of this message/);
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
