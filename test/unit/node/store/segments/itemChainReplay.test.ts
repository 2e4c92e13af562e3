/**
 * A request's item list is stored as a change of the previous request's; reading the latest list of
 * a session replays the chain of changes from its last full list. A session that only grows (never
 * compacted) keeps one chain for its whole life: 5,000 changes at 10,000 messages. Replaying it
 * built a new list per change (25 million entries, most of a second of garbage collection on the
 * first turn after a reopen); the replay now changes one list, each change costing what it changed
 * and how far from the end it lies.
 */
import { strict as assert } from 'assert';
import { listWork } from '../../../../../src/core/model/listLineage';
import type { RequestItem, RequestUsageRecord } from '../../../../../src/core/model/records';
import { applyItemsDelta, encodeRequestItems, ReplayedItemList } from '../../../../../src/core/model/requestItemsDelta';
import { rebuildItemLists } from '../../../../../src/node/store/segments/usageRecords';
import { lastOfChain } from '../../../../../src/node/store/segments/usageChain';
import { countTurns } from '../../../../support/eventLoopTurns';
import { seededRandom } from '../../../../support/seededRandom';

const item = (id: string, tokens = 10, badges: RequestItem['badges'] = []): RequestItem => ({ messageId: id, role: 'tool', kind: 'tool_result', tokens, badges, preview: id });

type Row = Parameters<typeof rebuildItemLists>[0][number];

function row(index: number, items: readonly RequestItem[], base?: { id: string; items: readonly RequestItem[] }): Row {
  const record: RequestUsageRecord = {
    id: `u${index}`, sessionId: 's', requestIndex: index, createdAt: index, model: 'm', contextWindow: 200_000, maxOutputTokens: 8_000,
    components: { system: 0, skills: 0, tools: 0, messages: items.length, toolResults: 0, summaries: 0 }, estimatedInputTokens: items.length, items: [],
  };
  const { items: _items, ...rest } = record;
  return { ...rest, storedItems: encodeRequestItems(items, base) };
}

/** A session's item lists: mostly appends, sometimes an item changed, removed or inserted in the middle, now and then a compaction. */
function generatedLists(seed: number, requests: number): RequestItem[][] {
  const random = seededRandom(seed);
  const lists: RequestItem[][] = [];
  let items: RequestItem[] = [item('system'), item('tool:read_file')];
  let next = 0;
  for (let r = 0; r < requests; r++) {
    const change = random.int(20);
    if (change === 0 && items.length > 4) items = [...items.slice(0, 2), item(`summary${next++}`), ...items.slice(-2)];
    else if (change === 1 && items.length > 3) items = items.map((it, i) => (i === 2 + random.int(items.length - 2) ? item(it.messageId, it.tokens, ['archived']) : it));
    else if (change === 2 && items.length > 3) items = items.filter((_, i) => i !== 2 + random.int(items.length - 2));
    else if (change === 3) items = [...items.slice(0, 2), item(`dynamic${next++}`), ...items.slice(2)];
    items = [...items, ...Array.from({ length: 1 + random.int(3) }, () => item(`m${next++}`))];
    lists.push(items);
  }
  return lists;
}

describe("a session's item lists replayed from their chain of changes", () => {
  it('applying a change in place gives what applying it to a copy gives, for generated changes', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const lists = generatedLists(seed, 40);
      for (let r = 1; r < lists.length; r++) {
        const stored = encodeRequestItems(lists[r], { id: 'b', items: lists[r - 1] });
        if ('full' in stored) continue;
        const replayed = new ReplayedItemList(lists[r - 1]);
        replayed.apply(stored.removed, stored.added);
        const list = replayed.items;
        assert.deepEqual(list, applyItemsDelta(lists[r - 1], stored.removed, stored.added), `seed ${seed}, request ${r}`);
        assert.deepEqual(list, lists[r], `seed ${seed}, request ${r}`);
      }
    }
  });

  it("the chain's last record has the list every record of it rebuilt one by one has, and an empty one when a link is missing", async () => {
    for (let seed = 1; seed <= 100; seed++) {
      const lists = generatedLists(seed, 60);
      const rows: Row[] = [row(0, lists[0])];
      for (let r = 1; r < lists.length; r++) rows.push(row(r, lists[r], { id: `u${r - 1}`, items: lists[r - 1] }));
      // The chain that ends at the last row: back to its latest full list.
      let start = rows.length - 1;
      while (start > 0 && !('full' in rows[start].storedItems!)) start--;
      const chain = rows.slice(start);
      const expected = rebuildItemLists(chain).pop()!;
      assert.deepEqual(await lastOfChain(chain), expected, `seed ${seed}`);
      assert.deepEqual((await lastOfChain(chain))!.items, lists[lists.length - 1], `seed ${seed}`);
      if (chain.length > 2) {
        const broken = [...chain.slice(0, 1), ...chain.slice(2)];
        assert.deepEqual((await lastOfChain(broken))!.items, rebuildItemLists(broken).pop()!.items, `seed ${seed}: a row of the chain lost`);
        assert.deepEqual((await lastOfChain(broken))!.items, []);
      }
    }
  });

  it('replaying the chain of a session that grew to 10,000 items reads each item about once, not once per change, in slices', async () => {
    const rows: Row[] = [];
    // The message framing item, last, changes with every request (its count of messages).
    let items: RequestItem[] = [item('system'), item('framing', 0)];
    rows.push(row(0, items));
    for (let r = 1; r <= 5_000; r++) {
      const before = items;
      items = [...items.slice(0, -1), item(`a${r}`), item(`t${r}`), item('framing', r)];
      rows.push(row(r, items, { id: `u${r - 1}`, items: before }));
    }
    assert.ok(rows.slice(1).every((r) => !('full' in r.storedItems!)), 'one chain: every change rests on the one before');
    const before = listWork.positionsRead;
    const { result, turns } = await countTurns(() => lastOfChain(rows));
    const last = result!;
    const read = listWork.positionsRead - before;
    assert.ok(turns >= 1, 'replayed in one block');
    assert.equal(last.items.length, 10_002);
    assert.deepEqual(last.items, items);
    assert.ok(read <= 3 * 10_002, `${read.toLocaleString('en-US')} positions read replaying 5,000 changes`);
  });
});
