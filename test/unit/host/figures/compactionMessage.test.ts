import { strict as assert } from 'assert';
import { ContextBudget } from '../../../../src/core/accounting/budget';
import { windowFigures } from '../../../../src/core/accounting/windowFigures';
import { DEFAULT_SETTINGS } from '../../../../src/core/settings';
import { compactionMessage } from '../../../../src/host/figures/compactionMessage';

const figures = (messages: number) => windowFigures(new ContextBudget({ contextWindow: 10_000, maxOutputTokens: 1_000, settings: DEFAULT_SETTINGS }).setComponents({ system: 0, skills: 0, tools: 0, messages, toolResults: 0, summaries: 0 }));

describe('the message a compaction command shows', () => {
  it('says what the strategies did in words, never their internal names', () => {
    const message = compactionMessage({ status: 'complete', strategies: ['tool-result-masking', 'threshold-summarization'] }, figures(8_000), figures(3_000));
    assert.match(message, /^Compacted context: 8,000 → 3,000 tokens \(older tool results archived, older messages summarized\)\./);
    assert.doesNotMatch(message, /masking|threshold|summarization/);
  });
});
