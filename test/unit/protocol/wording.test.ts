import * as assert from 'assert';
import { countOf, grouped } from '../../../src/protocol/wording';

describe('protocol/wording: counts in words', () => {
  it('groups thousands exactly as toLocaleString("en-US") does, with one formatter for every call', () => {
    for (const n of [0, 1, -1, 999, 1_000, 12_345, -98_765, 1_048_576, 22_020_096, 0.5, 1234.5678]) assert.strictEqual(grouped(n), n.toLocaleString('en-US'));
  });

  it('says "1 token" and "1,024 tokens"', () => {
    assert.strictEqual(countOf(1, 'token'), '1 token');
    assert.strictEqual(countOf(1024, 'token'), '1,024 tokens');
    assert.strictEqual(countOf(1.4, 'token'), '1 token');
  });
});
