import { strict as assert } from 'assert';
import { readdirSync, readFileSync, statSync, truncateSync, appendFileSync, existsSync } from 'fs';
import { join } from 'path';
import type { SqlJsStore } from '../../../../../src/node/store';
import { nodeWriteFs, type WriteFs } from '../../../../../src/node/store/files/atomicFile';
import { segmentsReadDuring } from '../fixtures/filesRead';
import { storeFolderPerTest } from '../fixtures/storeFolder';

/**
 * A long session gathers a segment file every 2 MiB, and the facts of each (what resuming and the
 * lists need, about 150 KB with its lists) are kept beside them so that a window opening the
 * session loads none of them. Sealing a segment writes that segment's facts, not every segment's
 * again, and a window killed in the middle of writing them loses none of the facts written before.
 */
const SESSION = 'sfacts';
const TURNS = 24;
const filler = 'log line with some output\n'.repeat(300);

async function writeTurns(store: SqlJsStore, from: number, to: number): Promise<void> {
  for (let t = from; t < to; t++) {
    await store.putMessages(SESSION, [{ id: `m${t}`, role: 'user', kind: 'user', content: `${t} ${filler}`, agentVisible: true, userVisible: true, createdAt: t + 1 }]);
    await store.addRequestUsage({ id: `u${t}`, sessionId: SESSION, requestIndex: t, createdAt: t + 1, model: 'm', contextWindow: 1000 + t, components: { system: 0, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, estimatedInputTokens: 1, items: [] } as never);
    if (t % 8 === 7) await store.addCompactionEvent({ id: `cmp${t}`, sessionId: SESSION, trigger: 'auto', status: 'done', startedAt: t + 1, tokensBefore: 10 } as never);
    await store.flush();
  }
}

async function openLists(store: SqlJsStore) {
  const [figures, compactions] = await Promise.all([store.listRequestUsage(SESSION, { items: false }), store.listCompactionEvents(SESSION)]);
  return { figures: figures.map((u) => [u.requestIndex, u.contextWindow]), compactions: compactions.map((c) => c.id) };
}

/** The store's file writes, with the bytes written to the session's facts files counted. */
function countingFs(): { fs: WriteFs; factsBytes: () => number } {
  let bytes = 0;
  const facts = (path: string, data: Uint8Array) => {
    if (/[\\/]segments\.(json|log)(\.tmp-.*)?$/.test(path)) bytes += data.length;
  };
  return {
    fs: {
      ...nodeWriteFs,
      writeFileSynced: (path, data) => (facts(path, data), nodeWriteFs.writeFileSynced(path, data)),
      writeFile: (path, data, append) => (facts(path, data), nodeWriteFs.writeFile(path, data, append)),
    },
    factsBytes: () => bytes,
  };
}

describe('the facts kept beside a session’s segments', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-facts-log-');

  it('grow by what each seal adds: the bytes written are about the facts kept, not a rewrite of all of them at every seal', async () => {
    const folder = stores.folder();
    const counting = countingFs();
    const store = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024, fs: counting.fs });
    await store.createSession({ id: SESSION, title: 'facts' });
    await writeTurns(store, 0, TURNS);
    const dir = join(folder, 'sessions', SESSION);
    const sealed = readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n)).length - 1;
    assert.ok(sealed >= 10, `a session of many sealed segments (${sealed})`);
    const kept = ['segments.json', 'segments.log'].reduce((n, name) => n + (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : 0), 0);
    assert.ok(kept > 0, 'facts were recorded');
    assert.ok(counting.factsBytes() <= 2 * kept, `${counting.factsBytes()} bytes written for ${kept} bytes of facts over ${sealed} seals`);
  });

  it('a window killed while appending facts loses only the entry it was writing: every other segment still opens from its facts, with the same lists', async () => {
    const folder = stores.folder();
    const killed = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 16 * 1024 });
    await killed.createSession({ id: SESSION, title: 'facts' });
    await writeTurns(killed, 0, TURNS);
    // The window is killed (never closed) while appending a last entry: the log ends mid-line.
    const dir = join(folder, 'sessions', SESSION);
    const log = join(dir, 'segments.log');
    const text = readFileSync(log, 'utf8');
    const lastLine = text.trimEnd().lastIndexOf('\n');
    const cut = JSON.parse(text.slice(lastLine + 1)) as { name: string };
    truncateSync(log, Buffer.byteLength(text.slice(0, lastLine + 1 + 200)));
    const segments = readdirSync(dir).filter((n) => /\.seg\d+\.sqlite$/.test(n));
    const unsealed = segments.sort((a, b) => Number(/seg(\d+)/.exec(a)![1]) - Number(/seg(\d+)/.exec(b)![1])).at(-1)!;

    const next = await stores.openStore(folder, { debounceMs: 1e9 });
    const reading = await segmentsReadDuring(() => openLists(next));
    const loaded = new Set(reading.read.map((p) => p.split(/[\\/]/).pop()));
    assert.ok(loaded.has(cut.name), 'the segment whose entry was cut is opened');
    // The segment the killed window was still writing is recorded only once its file has settled for seconds.
    assert.deepEqual([...loaded].filter((n) => n !== cut.name && n !== unsealed), [], `no other of the ${segments.length} segments is loaded`);
    assert.equal(reading.result.figures.length, TURNS);
    assert.deepEqual(reading.result.compactions, ['cmp7', 'cmp15', 'cmp23']);

    // What this window appends after the cut line reads back: and a garbled line is skipped too.
    await next.close();
    appendFileSync(log, '\n{"name": "garbled", "summary": {"size": "x"');
    const third = await stores.openStore(folder, { debounceMs: 1e9 });
    const again = await segmentsReadDuring(() => openLists(third));
    assert.deepEqual([...new Set(again.read.map((p) => p.split(/[\\/]/).pop()))].filter((n) => n !== unsealed), [], 'the cut entry was recorded again: no sealed segment is loaded');
    assert.deepEqual(again.result, reading.result);
  });
});
