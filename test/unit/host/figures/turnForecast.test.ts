import { strict as assert } from 'assert';
import { turnForecast } from '../../../../src/host/figures/turnForecast';

describe('turns until compaction', () => {
  it("counts a turn's growth over all its requests, not per request, and says how many turns the average is over", () => {
    // Turn 1: three requests (two tool calls); turn 2: two requests so far.
    const requests = [
      { createdAt: 10, estimatedInputTokens: 1_000 },
      { createdAt: 11, estimatedInputTokens: 1_500 },
      { createdAt: 12, estimatedInputTokens: 2_000 },
      { createdAt: 20, estimatedInputTokens: 2_500 },
      { createdAt: 21, estimatedInputTokens: 3_000 },
    ];
    const forecast = turnForecast({ userMessageTimes: [9, 19], requests, usedNow: 3_200, compactAt: 10_000 });
    assert.deepEqual(forecast, { perTurn: 1_500, turns: 1, turnsLeft: 4 }, 'a turn added 1,500 tokens; 6,800 left fit 4 such turns (per request it would say 13)');
  });

  it('no forecast before a second turn, and none of turns left when turns do not grow the context', () => {
    assert.equal(turnForecast({ userMessageTimes: [9], requests: [{ createdAt: 10, estimatedInputTokens: 900 }, { createdAt: 11, estimatedInputTokens: 1_400 }], usedNow: 1_400, compactAt: 9_000 }), undefined);
    const flat = turnForecast({ userMessageTimes: [9, 19], requests: [{ createdAt: 10, estimatedInputTokens: 2_000 }, { createdAt: 20, estimatedInputTokens: 1_800 }], usedNow: 1_800, compactAt: 9_000 });
    assert.deepEqual(flat, { perTurn: 0, turns: 1 });
  });
});
