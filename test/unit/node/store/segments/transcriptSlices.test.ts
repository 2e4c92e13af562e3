import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { storeFolderPerTest } from '../fixtures/storeFolder';

/**
 * Reopening a session that never compacted reads its whole transcript (the working context is all
 * of it): the bodies are parsed a slice at a time with turns of the event loop between them, so the
 * extension host is never held for the whole read, and the transcript is the same.
 */
const SESSION = 'sslices';
const COUNT = 3_000;
const MARKER = 'slice-marker';

const message = (i: number, extra: Partial<Message> = {}): Message => ({ id: `m${i}`, role: i % 2 ? 'assistant' : 'user', kind: i % 2 ? 'assistant' : 'user', content: `${MARKER} ${i} ${'output line\n'.repeat(150)}`, agentVisible: true, userVisible: true, createdAt: i + 1, ...extra });

describe('reading a whole transcript', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-transcript-slices-');

  it('parses its bodies in slices with turns of the event loop between them, and returns every latest copy in order', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9 });
    await writing.createSession({ id: SESSION, title: 'never compacted' });
    for (let at = 0; at < COUNT; at += 500) await writing.putMessages(SESSION, Array.from({ length: 500 }, (_, i) => message(at + i)));
    await writing.putMessages(SESSION, [message(7, { content: `${MARKER} 7 rewritten`, pinned: true })]);
    await writing.close();

    const store = await stores.openStore(folder, { debounceMs: 1e9 });
    const original = JSON.parse;
    let sinceTurn = 0;
    let mostBetweenTurns = 0;
    let turning = true;
    const turn = () => {
      sinceTurn = 0;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof text === 'string' && text.includes(MARKER)) mostBetweenTurns = Math.max(mostBetweenTurns, ++sinceTurn);
      return original(text, reviver);
    }) as typeof JSON.parse;
    let transcript: Message[];
    try {
      transcript = await store.loadTranscript(SESSION);
    } finally {
      JSON.parse = original;
      turning = false;
    }
    assert.equal(transcript.length, COUNT);
    assert.deepEqual(transcript.slice(0, 3).map((m) => m.id), ['m0', 'm1', 'm2']);
    assert.equal(transcript[7].content, `${MARKER} 7 rewritten`, 'the latest copy of a rewritten message');
    assert.equal(transcript[7].pinned, true);
    assert.ok(mostBetweenTurns <= COUNT / 4, `${mostBetweenTurns} of ${COUNT} bodies parsed without a turn of the event loop`);
    const newer = (await store.loadTranscript(SESSION, { createdAfter: COUNT - 10 })).map((m) => m.id);
    assert.deepEqual(newer, Array.from({ length: 10 }, (_, i) => `m${COUNT - 10 + i}`), 'after a time, only the newer messages');
  });
});
