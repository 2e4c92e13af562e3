/** One definition of used, effective window and thresholds, each said with its denominator. */
import { strict as assert } from 'assert';
import { ContextBudget } from '../../../../src/core/accounting/budget';
import { compactionDelta, compactionSaved, formatShare, formatTokens, requestFigures, windowFigures } from '../../../../src/core/accounting/windowFigures';
import { withSettings } from '../../../../src/core/settings';

const budget = (used: number) =>
  new ContextBudget({ contextWindow: 128_000, maxOutputTokens: 8_192, settings: withSettings({ compactTrigger: 0.95, hardBlock: 0.98 }) }).setComponents({ system: 300, skills: 0, tools: 500, messages: used - 800, toolResults: 0, summaries: 0 });

describe('window figures', () => {
  it('measures every share against the effective window (context window − output reserve)', () => {
    const f = windowFigures(budget(12_000));
    assert.equal(f.effectiveWindow, 119_808);
    assert.equal(f.compactAt, Math.floor(119_808 * 0.95));
    assert.equal(f.blockAt, Math.floor(119_808 * 0.98));
    // The setting, not compactAt ÷ context window (which read 88.9% and contradicted the status bar).
    assert.equal(formatShare(f.compactShare), '95%');
    assert.equal(formatShare(f.blockShare), '98%');
    assert.equal(f.used, 12_000);
    assert.equal(f.usedShare, 12_000 / 119_808);
  });

  it('says each figure with its denominator', () => {
    const f = windowFigures(budget(3_612), { requestIndex: 12, tokens: 13_096 });
    assert.equal(f.text.used, '3,612 of 119,808 tokens (3% of the effective window)');
    assert.equal(f.text.compactAt, '113,817 tokens = 95% of the effective window (119,808)');
    assert.equal(f.text.effectiveWindow, '119,808 tokens = 128,000-token window − 8,192 reserved for output');
    // The last request and the context now are different quantities, named as such.
    assert.equal(f.text.lastAndNow, 'last request 13,096 · context now 3,612');
    assert.equal(windowFigures(budget(3_612)).text.lastAndNow, 'context now 3,612');
  });

  it('puts the estimate beside the reported figure, never in its place, for the context now and the last request', () => {
    const reported = budget(3_085);
    reported.basis = 'reported';
    reported.estimatedTotal = 2_931;
    const f = windowFigures(reported, requestFigures(11, 2_823, 2_977));
    assert.equal(f.used, 3_085, 'every surface shows the reported basis');
    assert.equal(f.estimated, 2_931);
    assert.equal(f.text.used, '3,085 of 119,808 tokens (2.6% of the effective window)');
    assert.equal(f.text.estimate, "Tally's estimate 2,931");
    assert.equal(f.lastRequest?.tokens, 2_977, "the last request: the provider's count");
    assert.equal(f.text.lastRequest, "2,977 tokens (Tally's estimate 2,823)");
    assert.equal(f.text.lastAndNow, 'last request 2,977 · context now 3,085');

    const estimated = windowFigures(budget(2_931), requestFigures(11, 2_823));
    assert.equal(estimated.estimated, 2_931);
    assert.equal(estimated.text.estimate, undefined, 'on the estimate basis there is one figure only');
    assert.equal(estimated.text.lastRequest, '2,823 tokens');
  });

  it("says a compaction's figures with the estimate beside them, and an older record's figures alone", () => {
    const recorded = { tokensBefore: 3_085, tokensAfter: 1_785, estimatedTokensBefore: 2_931, estimatedTokensAfter: 1_631 };
    assert.equal(compactionDelta(recorded), "3,085 → 1,785 tokens (Tally's estimate 2,931 → 1,631)");
    assert.equal(compactionSaved(recorded), '1,300 tokens');
    assert.equal(compactionSaved({ ...recorded, estimatedTokensAfter: 1_600 }), "1,300 tokens (Tally's estimate 1,331)");
    assert.equal(compactionDelta({ tokensBefore: 2_931, tokensAfter: 1_631 }), '2,931 → 1,631 tokens', 'a record kept before the estimates were');
    assert.equal(compactionDelta({ ...recorded, estimatedTokensBefore: 3_085, estimatedTokensAfter: 1_785 }), '3,085 → 1,785 tokens', 'no estimate beside an equal figure');
  });

  it('formats shares with one decimal, dropping a trailing .0', () => {
    assert.equal(formatShare(0.95), '95%');
    assert.equal(formatShare(0.025), '2.5%');
    assert.equal(formatShare(0.831), '83.1%');
    assert.equal(formatShare(26 / 119_808), '<0.1%', 'a few tokens are not "0%"');
    assert.equal(formatShare(0), '0%');
  });

  it('writes token counts with commas between thousands, as en-US does, for every size and sign', () => {
    const values = [0, -0, 0.4, -0.4, 1, 12, 999, 999.5, 1_000, 12_345, 123_456, 1_234_567, -1_234, -999_999.6, 2 ** 53 - 1, 2 ** 53 + 2, 1e21, NaN, Infinity, -Infinity];
    for (let i = 0; i < 2_000; i++) values.push((i % 2 ? -1 : 1) * Math.random() * 10 ** (i % 17));
    for (const n of values) assert.equal(formatTokens(n), Math.round(n).toLocaleString('en-US'), String(n));
    assert.equal(formatTokens(113_817), '113,817');
  });
});
