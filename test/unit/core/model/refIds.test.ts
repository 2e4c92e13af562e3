import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { newRefId } from '../../../../src/core/model/ids';

describe("a stored result's id", () => {
  it('costs the same tokens whatever is drawn, so figures that count it repeat from run to run', async () => {
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const counter = getTokenCounter(encoding);
      await counter.load();
      const costs = new Set(Array.from({ length: 300 }, () => counter.count(`[Use read_result with ref_id="${newRefId()}", offset and limit (bytes) to read the full output.]`)));
      assert.equal(costs.size, 1, `${encoding}: ${[...costs].join(', ')} tokens`);
    }
  });

  it('is unique and sorts by when it was made', () => {
    const ids = Array.from({ length: 5_000 }, () => newRefId());
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(ids.every((id) => /^r\d{28}$/.test(id)), ids[0]);
    assert.ok(ids.every((id, i) => i === 0 || id.slice(0, 14) >= ids[i - 1].slice(0, 14)));
  });
});
