/**
 * What an image costs in input tokens, by each provider's published formula.
 *
 * Anthropic: about width × height / 750 tokens, after scaling an image down (keeping its aspect
 * ratio) so its long edge is at most 1,568 pixels and it costs at most about 1,600 tokens (some
 * 1.2 megapixels); a larger image is billed as the size it is scaled to.
 *
 * OpenAI (GPT-4o family, `detail: "high"` or `"auto"`): the image is fitted inside 2,048 × 2,048,
 * then scaled down so its shortest side is at most 768 pixels; it costs 85 tokens plus 170 per
 * 512-pixel tile that covers it. `detail: "low"` costs 85 whatever the size.
 */

export type ImageDetail = 'low' | 'high' | 'auto';

export interface ImageSize {
  width: number;
  height: number;
}

const ANTHROPIC_LONG_EDGE = 1568;
const ANTHROPIC_MAX_TOKENS = 1600;
const ANTHROPIC_PIXELS_PER_TOKEN = 750;

/** The size Anthropic scales an image to before billing it (itself when it is small enough). */
export function anthropicBilledSize(size: ImageSize): ImageSize {
  let scale = Math.min(1, ANTHROPIC_LONG_EDGE / Math.max(size.width, size.height));
  const pixels = size.width * size.height * scale * scale;
  const maxPixels = ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN;
  if (pixels > maxPixels) scale *= Math.sqrt(maxPixels / pixels);
  if (scale >= 1) return { width: size.width, height: size.height };
  return { width: Math.max(1, Math.floor(size.width * scale)), height: Math.max(1, Math.floor(size.height * scale)) };
}

export function anthropicImageTokens(size: ImageSize): number {
  const billed = anthropicBilledSize(size);
  return Math.ceil((billed.width * billed.height) / ANTHROPIC_PIXELS_PER_TOKEN);
}

const OPENAI_BASE_TOKENS = 85;
const OPENAI_TILE_TOKENS = 170;
const OPENAI_TILE = 512;
const OPENAI_FIT = 2048;
const OPENAI_SHORT_SIDE = 768;

/** The size OpenAI tiles an image at in high detail. */
export function openaiBilledSize(size: ImageSize): ImageSize {
  let { width, height } = size;
  const fit = Math.min(1, OPENAI_FIT / Math.max(width, height));
  width *= fit;
  height *= fit;
  const short = Math.min(1, OPENAI_SHORT_SIDE / Math.min(width, height));
  return { width: Math.max(1, Math.floor(width * short)), height: Math.max(1, Math.floor(height * short)) };
}

export function openaiImageTokens(size: ImageSize, detail: ImageDetail = 'auto'): number {
  if (detail === 'low') return OPENAI_BASE_TOKENS;
  const billed = openaiBilledSize(size);
  const tiles = Math.ceil(billed.width / OPENAI_TILE) * Math.ceil(billed.height / OPENAI_TILE);
  return OPENAI_BASE_TOKENS + OPENAI_TILE_TOKENS * tiles;
}

/** The formula that applies to a provider: Anthropic's for Claude, OpenAI's for the rest (an estimate for other servers, which calibration corrects). */
export function imageTokensFor(providerId: string, size: ImageSize, detail: ImageDetail = 'auto'): number {
  return providerId === 'anthropic' ? anthropicImageTokens(size) : openaiImageTokens(size, detail);
}

/**
 * The size to downscale an image to before sending when that saves tokens: the provider bills the
 * scaled size anyway (Anthropic), or fewer tiles cover it (OpenAI). Undefined when it would not.
 */
export function cheaperSize(providerId: string, size: ImageSize): ImageSize | undefined {
  const target = providerId === 'anthropic' ? anthropicBilledSize(size) : openaiBilledSize(size);
  if (target.width >= size.width && target.height >= size.height) return undefined;
  return target;
}
