import { strict as assert } from 'assert';
import type { RequestItem } from '../../../src/core/model/records';
import { applyItemsDelta, encodeRequestItems } from '../../../src/core/model/requestItemsDelta';

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
    assert.ok('full' in roundTrip([item('a'), item('a')], [item('a'), item('a'), item('b')]));
    assert.ok('full' in roundTrip(base, [item('x'), item('y')]));
    assert.ok('full' in encodeRequestItems(base));
  });
});
