import { strict as assert } from 'assert';
import type { RequestItem } from '../../../../src/core/model/records';
import { applyItemsDelta, encodeRequestItems } from '../../../../src/core/model/requestItemsDelta';

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

  it('items that moved, repeated ids, or a list with nothing in common are stored in full', () => {
    const base = [item('a'), item('b'), item('c')];
    assert.ok('full' in roundTrip(base, [item('c'), item('a'), item('b')]));
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
});
