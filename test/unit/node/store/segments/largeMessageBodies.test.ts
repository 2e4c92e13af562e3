/**
 * A message of megabytes (a reply's thinking, a long answer) is stored without holding the thread:
 * its body goes to a file of its own in parts, with turns of the event loop between them, and the
 * segment's row holds a short stub; every read gives the whole message back. Counted, not timed:
 * turns of the event loop while it is stored, and the longest body sql.js was given.
 */
import { strict as assert } from 'assert';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join } from 'path';
import type { Message } from '../../../../../src/core/model/message';
import { BODY_FILE_CHARS } from '../../../../../src/node/store/segments/messageBodyFiles';
import { sqlRuntime } from '../../../../../src/node/store/sql/sqlRuntime';
import { exited, runAppender } from '../fixtures/appenderProcess';
import { largeReply, type Ack } from '../fixtures/appender';
import { storeFolderPerTest } from '../fixtures/storeFolder';
import { filesUnder } from '../fixtures/storeFiles';

const SESSION = 'sbig';

function reply(id: string, createdAt: number, thinkingChars: number): Message {
  const thinking = `${id}: `.padEnd(thinkingChars, 'The test fails because the offset is counted twice. ');
  return {
    id, role: 'assistant', kind: 'assistant', createdAt, agentVisible: true, userVisible: true,
    content: `The answer of ${id}.`,
    reasoning: [{ format: 'anthropic', text: thinking, signature: `sig-${id}` }],
    toolCalls: [{ id: `call-${id}`, name: 'read_file', arguments: '{"path":"src/a.ts"}' }],
  };
}

/** Turns of the event loop while `work` runs. */
async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    await work;
  } finally {
    running = false;
  }
  return turns;
}

/** The longest message body in the segment files of `folder` (what sql.js was given in one row). */
async function longestRowBody(folder: string): Promise<number> {
  const SQL = await sqlRuntime();
  let longest = 0;
  for (const path of filesUnder(folder).filter((p) => /\.seg\d+\.sqlite$/.test(p))) {
    const db = new SQL.Database(readFileSync(path));
    longest = Math.max(longest, Number(db.exec('SELECT max(length(body)) FROM messages')[0]?.values[0][0] ?? 0));
    db.close();
  }
  return longest;
}

const bodyFiles = (folder: string) => readdirSync(join(folder, 'blobs')).filter((n) => n.endsWith('.blob')).map((n) => join(folder, 'blobs', n));

describe('sql.js store: a message of megabytes', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-bigbody-');

  it('is stored in parts with turns of the event loop between them, its row a stub, and every read gives it back whole', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    await store.createSession({ id: SESSION, title: 'big' });
    const small = reply('m1', 1, 2_000);
    const big = { ...reply('m2', 2, 20 * 1024 * 1024), pinned: true };
    const turns = await turnsDuring(store.putMessages(SESSION, [small, big]));
    assert.ok(turns >= 20, `the event loop turned ${turns} times while 20 MB was stored`);
    await store.flush();
    assert.ok((await longestRowBody(folder)) < BODY_FILE_CHARS, 'no row holds the large body');
    assert.deepEqual(await store.loadTranscript(SESSION), [small, big]);
    await store.close();

    const reopened = await stores.openStore(folder);
    assert.deepEqual(await reopened.loadTranscript(SESSION), [small, big], 'the whole transcript after a reopen');
    assert.deepEqual(await reopened.loadMessages(SESSION, ['m2']), [big], 'by id');
    assert.deepEqual((await reopened.loadRecentTranscript(SESSION, 1)).messages, [big], 'the newest page');
    assert.equal((await reopened.loadToolCallIndex(SESSION)).calls.get('call-m2')?.name, 'read_file', 'its tool call is found in the segment');
    assert.deepEqual([...(await reopened.loadPins(SESSION, 10))], [['m2', true]], 'its pin is found in the segment');
    assert.deepEqual(reopened.problems, []);
  });

  it('keeps a reply of binary-looking text exactly: NULs, lone surrogates, every control character', async () => {
    const folder = stores.folder();
    const store = await stores.openStore(folder);
    await store.createSession({ id: SESSION, title: 'binary' });
    const noise = Array.from({ length: 600_000 }, (_, i) => String.fromCharCode(i % 7 === 0 ? 0xd800 + (i % 1024) : i % 7 === 1 ? 0xdc00 + (i % 1024) : i % 33)).join('');
    const binary: Message = { ...reply('m1', 1, 1_000), content: noise, reasoning: [{ format: 'openai-chat', text: `\u0000${noise}\uffff` }] };
    await store.putMessages(SESSION, [binary]);
    await store.close();
    assert.equal(bodyFiles(folder).length, 1, 'kept in a body file');
    const [loaded] = await (await stores.openStore(folder)).loadTranscript(SESSION);
    assert.ok(loaded.content === noise && loaded.reasoning?.[0].text === binary.reasoning![0].text, 'every character as it was');
  });

  for (const [damage, change] of [
    ['missing', (path: string) => rmSync(path)],
    ['damaged', (path: string) => writeFileSync(path, Buffer.from(readFileSync(path)).fill(0x20, 1000, 2000))],
  ] as const) {
    it(`whose file is ${damage} loads in its place saying its text could not be read, and the rest of the session loads`, async () => {
      const folder = stores.folder();
      const store = await stores.openStore(folder);
      await store.createSession({ id: SESSION, title: 'big' });
      const before = reply('m1', 1, 2_000);
      const after = reply('m3', 3, 2_000);
      await store.putMessages(SESSION, [before, reply('m2', 2, 1024 * 1024), after]);
      await store.close();
      const [file] = bodyFiles(folder);
      change(file);
      const reopened = await stores.openStore(folder);
      const transcript = await reopened.loadTranscript(SESSION);
      assert.deepEqual(transcript.map((m) => m.id), ['m1', 'm2', 'm3']);
      assert.deepEqual([transcript[0], transcript[2]], [before, after]);
      assert.match(transcript[1].content, /could not be read: its file (is missing|does not match its SHA-256)/);
      assert.equal(transcript[1].reasoning, undefined, 'no thinking is sent back without its text');
      assert.equal(transcript[1].toolCalls?.[0].id, 'call-m2', 'its calls are kept');
      assert.equal(reopened.problems.length, 1, `reported once: ${JSON.stringify(reopened.problems)}`);
    });
  }

  it('written by a process killed while it stores them: every reply it saved loads whole, none half', async () => {
    const folder = stores.folder();
    for (let round = 0; round < 4; round++) {
      const child = runAppender(folder, SESSION, `r${round}`, 1_000, 'large');
      let acked = -1;
      // Killed as the next reply is being written: after 1 to 3 saved ones.
      const killAt = 1 + (round % 3);
      child.on('message', (ack: Ack) => {
        acked = ack.acked;
        if (acked + 1 >= killAt) child.kill('SIGKILL');
      });
      await exited(child);
      const store = await stores.openStore(folder);
      const mine = (await store.loadTranscript(SESSION)).filter((m) => m.id.startsWith(`r${round}-`));
      assert.ok(mine.length >= acked + 1, `round ${round}: the ${acked + 1} saved replies are there (${mine.length})`);
      mine.forEach((m, i) => assert.deepEqual(m, largeReply(`r${round}`, i), `round ${round}: reply ${i} whole`));
      assert.deepEqual(store.problems, [], `round ${round}: nothing damaged`);
      await store.close();
    }
  });
});
