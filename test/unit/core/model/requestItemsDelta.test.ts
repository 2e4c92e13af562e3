import { strict as assert } from 'assert';
import type { RequestItem } from '../../../../src/core/model/records';
import { listWork } from '../../../../src/core/model/listLineage';
import { applyItemsDelta, encodeRequestItems, encodeRequestItemsInSlices } from '../../../../src/core/model/requestItemsDelta';
import { countTurns } from '../../../support/eventLoopTurns';

const item = (id: string, tokens = 10, badges: RequestItem['badges'] = []): RequestItem => ({ messageId: id, role: 'tool', kind: 'tool_result', tokens, badges, preview: `output of ${id}` });

function roundTrip(base: RequestItem[], next: RequestItem[]) {
  const stored = encodeRequestItems(next, { id: 'u-base', items: base });
  const rebuilt = 'full' in stored ? stored.full : applyItemsDelta(base, stored.removed, stored.added);
  assert.deepEqual(rebuilt, next);
  return stored;
}

describe('request items stored as a change of the previous request', () => {
  it('a request that only adds messages stores only the new items', () => {
    const base = Array.from({ length: 500 }, (_, i) => item(`m${i}`));
    const stored = roundTrip(base, [...base, item('m500'), item('m501')]);
    assert.ok(!('full' in stored));
    assert.deepEqual(stored.removed, []);
    assert.deepEqual(stored.added.map(([at, it]) => [at, it.messageId]), [[500, 'm500'], [501, 'm501']]);
  });

  it('an item archived in the middle is stored as removed and added at its place', () => {
    const base = Array.from({ length: 50 }, (_, i) => item(`m${i}`, 100));
    const next = [...base];
    next[20] = item('m20', 12, ['archived']);
    const stored = roundTrip(base, [...next, item('m50')]);
    assert.ok(!('full' in stored));
    assert.deepEqual(stored.removed, ['m20']);
    assert.deepEqual(stored.added.map(([at]) => at), [20, 50]);
  });

  it('a compaction that replaces the oldest items with a summary rebuilds exactly', () => {
    const base = Array.from({ length: 40 }, (_, i) => item(`m${i}`));
    const summary = { ...item('s1', 300), kind: 'summary', role: 'user' };
    const stored = roundTrip(base, [summary, ...base.slice(30), item('m40')]);
    assert.ok(!('full' in stored));
    assert.equal(stored.removed.length, 30);
  });

  it('an item that moved is stored as removed and added again; repeated ids, or a list with nothing in common, are stored in full', () => {
    const base = [item('a'), item('b'), item('c')];
    const moved = roundTrip(base, [item('c'), item('a'), item('b')]);
    assert.ok(!('full' in moved) && moved.removed.join() === 'c' && moved.added.map(([at]) => at).join() === '0');
    // Repeated ids in the stretch that changed cannot be named apart: stored in full. Around an
    // unchanged start they need not be named at all.
    assert.ok('full' in roundTrip([item('a'), item('x'), item('a')], [item('a'), item('y'), item('a', 11)]));
    assert.ok(!('full' in roundTrip([item('a'), item('a')], [item('a'), item('a'), item('b')])));
    assert.ok('full' in roundTrip(base, [item('x'), item('y')]));
    assert.ok('full' in encodeRequestItems(base));
  });

  it('lists sharing their item objects (as a session reuses them) rebuild exactly after any edit, stored as a small change when the edit is small', () => {
    let seed = 7;
    const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    let base: RequestItem[] = Array.from({ length: 60 }, (_, i) => item(`m${i}`));
    let made = 0;
    for (let round = 0; round < 300; round++) {
      const next = [...base];
      const edits = 1 + random(3);
      for (let e = 0; e < edits; e++) {
        const at = random(next.length + 1);
        const what = random(5);
        if (what === 0 && next.length > 1) next.splice(Math.min(at, next.length - 1), 1);
        else if (what === 1 && at < next.length) next[at] = item(next[at].messageId, next[at].tokens + 1);
        else if (what === 2 && next.length > 0) next.splice(at, 0, next[random(next.length)]); // a repeated id
        else next.splice(at, 0, item(`n${made++}`));
      }
      const stored = roundTrip(base, next);
      if (!('full' in stored) && edits === 1) assert.ok(stored.added.length <= 2, `round ${round}: a one-edit change adds at most the edited items`);
      base = next.length > 200 ? next.slice(0, 60) : next;
    }
  });

  it('knows an id came back after it was added in a change: removing one of its items again stores a list that rebuilds exactly', () => {
    // Each list is a change of the one before, so what the encoder knows of a list's ids is carried along the chain.
    const [a, b, c] = [item('a'), item('b'), item('c')];
    const framing = (tokens: number) => item('framing', tokens);
    const lists = [[a, b, c], [a, b, c, framing(1)], [a, b, c, item('a', 12), framing(2)], [a, b, c, framing(3)], [a, b, framing(4)], [a, b, item('c', 3), framing(5)]];
    for (let i = 1; i < lists.length; i++) roundTrip(lists[i - 1], lists[i]);
  });

  it('a prompt that changed at the head while messages were added at the end is stored as those two changes, without indexing the list', () => {
    const prompt = (tools: number) => [item('system', 900), ...Array.from({ length: tools }, (_, t) => item(`tool:${t}`, 40))];
    const conversation = Array.from({ length: 5_000 }, (_, i) => item(`m${i}`));
    // The items as read back from the store: equal objects, not the same ones.
    const base = [...prompt(3), ...conversation, item('framing', 1)].map((it) => ({ ...it }));
    const next = [...prompt(12), ...conversation, item('m5000'), item('m5001'), item('framing', 2)];
    const indexed = listWork.listsIndexed;
    const stored = roundTrip(base, next);
    assert.equal(listWork.listsIndexed - indexed, 0, 'the general comparison indexed the list');
    assert.ok(!('full' in stored));
    assert.deepEqual(stored.removed, ['framing']);
    assert.deepEqual(stored.added.map(([at, it]) => `${at}:${it.messageId}`), [
      ...Array.from({ length: 9 }, (_, k) => `${4 + k}:tool:${3 + k}`),
      '5013:m5000', '5014:m5001', '5015:framing',
    ]);
  });

  it('changes at the head and the end of generated lists, with repeated ids and items that stayed among them, rebuild exactly', () => {
    const seedText = process.env.TALLY_SEED ?? String(Date.now() % 100_000);
    let seed = Number(seedText);
    const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    let made = 0;
    for (let round = 0; round < 400; round++) {
      const head = Array.from({ length: random(12) }, () => item(`h${random(8)}`, 1 + random(3)));
      const middle = Array.from({ length: 20 + random(200) }, () => item(`m${made++}`));
      const tail = Array.from({ length: random(6) }, () => item(`t${random(5)}`, 1 + random(2)));
      const base = [...head, ...middle, ...tail];
      const next = [...base];
      // Edits near the head and near the end; some keep items of the head among new ones.
      for (let e = random(4); e > 0; e--) next.splice(random(Math.min(next.length, head.length + 2) + 1), random(2), item(`h${random(10)}`, 1 + random(3)));
      for (let e = random(4); e > 0; e--) next.splice(next.length - random(Math.min(next.length, tail.length + 2) + 1), random(2), item(`t${random(7)}`, 1 + random(2)));
      try {
        roundTrip(base.map((it) => ({ ...it })), next);
      } catch (error) {
        throw new Error(`seed ${seedText}, round ${round}: ${(error as Error).message}`);
      }
    }
  });

  it('a change of a 40,000-item list read back from the store is found in slices, with turns of the event loop between, and is the change found at once', async () => {
    const conversation = Array.from({ length: 40_000 }, (_, i) => item(`m${i}`));
    const base = [item('prompt', 2_100), ...conversation, item('framing', 1)].map((it) => ({ ...it }));
    const next = [item('system', 900), item('tool:a', 40), ...conversation, item('m40000'), item('framing', 2)];
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    const { result, turns } = await countTurns(() => encodeRequestItemsInSlices(next, { id: 'u-base', items: base }, nextTurn));
    assert.deepEqual(result, encodeRequestItems(next, { id: 'u-base', items: base }));
    assert.ok(!('full' in result));
    assert.ok(turns >= 4, `${turns} turns while 40,000 items were compared`);
  });
});
