import { strict as assert } from 'assert';
import type { Message } from '../../../../../src/core/model/message';
import { callArguments } from '../../../../../src/host/inspector/documentTitles';
import { parsesDuring } from '../fixtures/jsonParses';
import { storeFolderPerTest } from '../fixtures/storeFolder';

const SESSION = 'scalls';

function step(i: number): Message[] {
  const call = { id: `call_${i}`, name: i % 2 ? 'run_command' : 'read_file', arguments: JSON.stringify(i % 2 ? { command: `npm test -- case${i}` } : { path: `src/m${i}.ts` }) };
  // Outputs that spell the keys the index looks for: inside a JSON string their quotes are escaped.
  const output = `line\n"toolCalls":[{"id":"fake_${i}"}]\n"toolCallId":"fake_${i}"\n`.repeat(200);
  return [
    { id: `a${i}`, role: 'assistant', kind: 'assistant', content: `Step ${i}.`, toolCalls: [call], agentVisible: true, userVisible: true, createdAt: i * 10 + 1 },
    { id: `t${i}`, role: 'tool', kind: 'tool_result', content: output, toolCallId: call.id, toolName: call.name, agentVisible: true, userVisible: true, createdAt: i * 10 + 2 },
  ];
}

describe('the tool calls of a transcript, read without the results', function () {
  this.timeout(60_000);
  const stores = storeFolderPerTest('tally-call-index-');

  it('names every call and times every result as the whole transcript does, decoding no result', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 32 * 1024 });
    await writing.createSession({ id: SESSION, title: 'calls' });
    for (let i = 0; i < 40; i++) {
      await writing.putMessages(SESSION, step(i));
      if (i % 5 === 4) await writing.flush();
    }
    await writing.putMessages(SESSION, [{ ...step(3)[1], pinned: true }]); // a rewritten result
    await writing.close();

    const store = await stores.openStore(folder);
    const transcript = await store.loadTranscript(SESSION);
    const { result: index, parsed: resultsParsed } = await parsesDuring(() => store.loadToolCallIndex(SESSION), '"role":"tool"');
    assert.equal(resultsParsed, 0, 'no result was decoded');
    assert.deepEqual(index.calls, callArguments(transcript));
    const times = new Map(transcript.filter((m) => m.role === 'tool').map((m) => [m.toolCallId!, m.createdAt]));
    assert.deepEqual(index.resultTimes, times);
    assert.equal(index.calls.size, 40);
    assert.ok(![...index.calls.keys(), ...index.resultTimes.keys()].some((id) => id.startsWith('fake_')), 'text inside outputs is never taken for a call');
  });
});
