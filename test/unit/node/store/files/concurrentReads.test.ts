import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSIONS = ['sa', 'sb', 'sc'];
const WINDOWS = 6;

function step(window: number, i: number): Message[] {
  const call = { id: `c${window}_${i}`, name: 'run_command', arguments: JSON.stringify({ command: `npm test ${window}.${i}` }) };
  const at = window * 100 + i * 2 + 1;
  return [
    { id: `a${window}_${i}`, role: 'assistant', kind: 'assistant', content: `Step ${i}.`, toolCalls: [call], agentVisible: true, userVisible: true, createdAt: at },
    { id: `t${window}_${i}`, role: 'tool', kind: 'tool_result', content: `ok ${i}\n`.repeat(50), toolCallId: call.id, toolName: 'run_command', agentVisible: true, userVisible: true, createdAt: at + 1 },
  ];
}

describe('reads of many files at once, with few databases allowed open', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-concurrent-reads-');

  it('never uses a database another read closed to make room: every read answers in full', async () => {
    const folder = stores.folder();
    for (let w = 0; w < WINDOWS; w++) {
      // Windows still open: their files are read where they are (not merged), kept open between reads.
      const window = await stores.openStore(folder, { debounceMs: 1e9 });
      for (const id of SESSIONS) {
        if (w === 0) await window.createSession({ id, title: id });
        for (let i = 0; i < 5; i++) await window.putMessages(id, step(w, i));
      }
      await window.flush();
    }
    // Each window wrote one segment per session: 18 files, read through an open bound of 2.
    const store = await stores.openStore(folder, { debounceMs: 1e9, maxOpenDatabases: 2 });
    for (let round = 0; round < 30; round++) {
    const reads = SESSIONS.flatMap((id) => [
      store.loadTranscript(id).then((messages) => ['transcript', id, messages.length]),
      store.loadToolCallIndex(id).then((index) => ['calls', id, index.calls.size]),
      store.loadRecentTranscript(id, 7).then((recent) => ['recent', id, recent.messages.length]),
      store.listCompactionEvents(id).then((events) => ['events', id, events.length]),
    ]);
    const answers = await Promise.all([...reads, ...reads.map((r) => r)]);
    for (const [what, id, count] of answers) {
      const expected = { transcript: WINDOWS * 10, calls: WINDOWS * 5, recent: 7, events: 0 }[what as string];
      assert.equal(count, expected, `${what} of ${id}`);
    }
    }
    assert.deepEqual(store.problems, [], 'no file was reported as failing');
  });

  it('a read that meets this window’s segment sealed and closed by a save meanwhile reads it from its file', async () => {
    const store = await stores.openStore(stores.folder(), { debounceMs: 1e9, segmentMaxBytes: 4 * 1024 });
    await store.createSession({ id: 'sa', title: 'sealing' });
    let written = 0;
    for (let round = 0; round < 40; round++) {
      const batch = step(round, 0);
      await store.putMessages('sa', batch);
      written += batch.length;
      // The save seals the full segment and closes it while the reads are between files.
      const [, transcript, index, recent] = await Promise.all([store.flush(), store.loadTranscript('sa'), store.loadToolCallIndex('sa'), store.loadRecentTranscript('sa', 3)]);
      assert.equal(transcript.length, written, `round ${round}`);
      assert.equal(index.calls.size, written / 2);
      assert.equal(recent.messages.length, Math.min(3, written));
    }
  });
});
