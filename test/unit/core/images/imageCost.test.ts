/** What an image costs, by each provider's published formula, at a few sizes. */
import assert from 'node:assert/strict';
import { anthropicBilledSize, anthropicImageTokens, cheaperSize, imageTokensFor, openaiImageTokens } from '../../../../src/core/images/imageCost';

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

  it("each provider's formula by its id", () => {
    assert.equal(imageTokensFor('anthropic', { width: 1000, height: 1000 }), 1334);
    assert.equal(imageTokensFor('openai', { width: 1024, height: 1024 }), 765);
    assert.equal(imageTokensFor('openai-compatible', { width: 1024, height: 1024 }), 765);
  });

  it('a downscale is offered only where the provider would bill a smaller size', () => {
    assert.equal(cheaperSize('anthropic', { width: 800, height: 600 }), undefined);
    assert.deepEqual(cheaperSize('anthropic', { width: 6272, height: 1568 }), { width: 1568, height: 392 });
    assert.deepEqual(cheaperSize('openai', { width: 2048, height: 4096 }), { width: 768, height: 1536 });
  });
});
