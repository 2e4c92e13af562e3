/** What an image costs, by each provider's published formula, at a few sizes. */
import assert from 'node:assert/strict';
import { anthropicBilledSize, anthropicImageTokens, cheaperSize, imageTokensFor, openaiImageTokens, patchBilledSize } from '../../../../src/core/images/imageCost';

describe('image token costs', () => {
  it("Anthropic: width × height / 750, for images that fit", () => {
    assert.equal(anthropicImageTokens({ width: 200, height: 200 }), 54);
    assert.equal(anthropicImageTokens({ width: 1000, height: 1000 }), 1334);
    assert.equal(anthropicImageTokens({ width: 1092, height: 1092 }), 1590);
    assert.equal(anthropicImageTokens({ width: 1, height: 1 }), 1);
  });

  it('Anthropic: a larger image is billed at the size it is scaled to (long edge 1,568, about 1,600 tokens at most)', () => {
    const billed = anthropicBilledSize({ width: 3000, height: 2000 });
    assert.ok(Math.max(billed.width, billed.height) <= 1568);
    assert.ok(Math.abs(billed.width / billed.height - 1.5) < 0.01, 'the aspect ratio is kept');
    for (const size of [{ width: 3000, height: 2000 }, { width: 4000, height: 4000 }, { width: 1568, height: 1568 }]) {
      const tokens = anthropicImageTokens(size);
      assert.ok(tokens <= 1600 && tokens > 1500, `${size.width}×${size.height}: ${tokens}`);
    }
    // A long strip: the edge limit applies first (1568 × 392 is under the pixel limit).
    assert.deepEqual(anthropicBilledSize({ width: 6272, height: 1568 }), { width: 1568, height: 392 });
    assert.equal(anthropicImageTokens({ width: 6272, height: 1568 }), Math.ceil((1568 * 392) / 750));
  });

  it('OpenAI high detail: 85 + 170 per 512-pixel tile after fitting in 2048 and the short side at 768', () => {
    assert.equal(openaiImageTokens({ width: 512, height: 512 }, 'high'), 85 + 170);
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'high'), 765); // 768×768: 4 tiles
    assert.equal(openaiImageTokens({ width: 2048, height: 4096 }, 'high'), 1105); // 1024×2048 → 768×1536: 6 tiles
    assert.equal(openaiImageTokens({ width: 1920, height: 1080 }, 'auto'), 85 + 170 * 6); // 1365×768: 3×2 tiles
    assert.equal(openaiImageTokens({ width: 100, height: 30 }, 'high'), 255, 'a small image is never scaled up');
  });

  it('OpenAI low detail: 85 whatever the size', () => {
    assert.equal(openaiImageTokens({ width: 4000, height: 3000 }, 'low'), 85);
    assert.equal(openaiImageTokens({ width: 10, height: 10 }, 'low'), 85);
  });

  it("each provider's formula by its id and model", () => {
    assert.equal(imageTokensFor({ providerId: 'anthropic' }, { width: 1000, height: 1000 }), 1334);
    assert.equal(imageTokensFor({ providerId: 'openai' }, { width: 1024, height: 1024 }), 765);
    assert.equal(imageTokensFor({ providerId: 'openai-compatible' }, { width: 1024, height: 1024 }), 765);
    assert.equal(imageTokensFor({ providerId: 'openai', model: 'gpt-4.1-mini' }, { width: 1024, height: 1024 }), 1659);
    assert.equal(imageTokensFor({ providerId: 'openai', model: 'claude-sonnet-4' }, { width: 1024, height: 1024 }), 765, 'a Claude name on an OpenAI server follows the server');
  });

  // Figures derived by hand from OpenAI's vision guide, "Calculating costs".
  it('OpenAI tile models: their own base and tile price from the guide\'s table', () => {
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'high', 'gpt-4.1'), 765); // 85 + 170 × 4
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'high', 'gpt-5'), 630); // 70 + 140 × 4
    assert.equal(openaiImageTokens({ width: 512, height: 512 }, 'high', 'o3'), 225); // 75 + 150 × 1
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'high', 'gpt-4o-mini-2024-07-18'), 25501); // 2833 + 5667 × 4
    assert.equal(openaiImageTokens({ width: 4000, height: 3000 }, 'low', 'gpt-5'), 70, 'low detail: the base');
  });

  it('OpenAI patch models: 32-pixel patches, at most 1,536, times the model\'s multiplier', () => {
    // 1024×1024: 32 × 32 = 1,024 patches.
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'auto', 'gpt-4.1-mini'), 1659); // × 1.62 = 1,658.88
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'auto', 'o4-mini-2025-04-16'), 1762); // × 1.72 = 1,761.28
    assert.equal(openaiImageTokens({ width: 1024, height: 1024 }, 'low', 'openai/gpt-5-mini'), 1659, 'detail does not change a patch price');
    // 100×30: 4 × 1 = 4 patches × 2.46 = 9.84.
    assert.equal(openaiImageTokens({ width: 100, height: 30 }, 'auto', 'gpt-4.1-nano'), 10);
    // The guide's 1800×2400: 57 × 75 = 4,275 patches > 1,536; scale √(32² × 1536 / (1800 × 2400)) = 0.6034
    // gives 33.94 × 45.25 patches; down to 33 across: 1056×1408, 33 × 44 = 1,452 patches × 1.62 = 2,352.24.
    assert.deepEqual(patchBilledSize({ width: 1800, height: 2400 }), { width: 1056, height: 1408 });
    assert.equal(openaiImageTokens({ width: 1800, height: 2400 }, 'auto', 'gpt-5-mini'), 2353);
    // 2048×768: 64 × 24 = 1,536 patches exactly, not scaled: × 2.46 = 3,778.56.
    assert.equal(openaiImageTokens({ width: 2048, height: 768 }, 'auto', 'gpt-5-nano'), 3779);
  });

  it('a downscale is offered only where a smaller copy costs fewer tokens', () => {
    assert.equal(cheaperSize({ providerId: 'anthropic' }, { width: 800, height: 600 }), undefined);
    // Billed at 1568×392 (820 tokens); 1024×256 costs ⌈262,144 / 750⌉ = 350.
    assert.deepEqual(cheaperSize({ providerId: 'anthropic' }, { width: 6272, height: 1568 }), { width: 1024, height: 256, tokens: 350 });
    // Billed at 768×1536 (6 tiles, 1,105); 512×1024 is 2 tiles, 425.
    assert.deepEqual(cheaperSize({ providerId: 'openai' }, { width: 2048, height: 4096 }), { width: 512, height: 1024, tokens: 425 });
    // 2048×1536 is billed at 1024×768, 4 tiles: the smaller copy would cost the same.
    assert.equal(cheaperSize({ providerId: 'openai' }, { width: 2048, height: 1536 }), undefined);
    // Patches: billed at 1056×1408 (2,353); 768×1024 is 24 × 32 = 768 patches × 1.62 = 1,244.16.
    assert.deepEqual(cheaperSize({ providerId: 'openai', model: 'gpt-4.1-mini' }, { width: 1800, height: 2400 }), { width: 768, height: 1024, tokens: 1245 });
  });
});
