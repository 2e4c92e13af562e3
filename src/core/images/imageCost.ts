/**
 * What an image costs in input tokens, by each provider's published formula.
 *
 * Anthropic: about width × height / 750 tokens, after scaling an image down (keeping its aspect
 * ratio) so its long edge is at most 1,568 pixels and it costs at most about 1,600 tokens (some
 * 1.2 megapixels); a larger image is billed as the size it is scaled to.
 *
 * OpenAI: 512-pixel tiles or 32-pixel patches depending on the model (openaiImageCost.ts).
 */

import type { ImageBilling, ImageDetail, ImageSize } from './imageSize';
import { openaiImageTokens, openaiModelBilledSize } from './openaiImageCost';

export type { ImageBilling, ImageDetail, ImageSize } from './imageSize';
export { openaiBilledSize, openaiImageTokens, patchBilledSize } from './openaiImageCost';

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

/** The formula that applies: Anthropic's for Claude, OpenAI's (by model) for the rest (an estimate for other servers, which calibration corrects). */
export function imageTokensFor(billing: ImageBilling, size: ImageSize, detail: ImageDetail = 'auto'): number {
  return billing.providerId === 'anthropic' ? anthropicImageTokens(size) : openaiImageTokens(size, detail, billing.model);
}

/**
 * The long edge a downscaled copy keeps: about half a 2K screen, where a screenshot's text still
 * reads. Scaling down only to the size the provider bills would save bytes but no tokens.
 */
export const SMALLER_LONG_EDGE = 1024;

/**
 * A smaller size worth offering before sending: the billed size fitted inside
 * SMALLER_LONG_EDGE pixels, with what it costs. Undefined when it would not cost fewer tokens.
 */
export function cheaperSize(billing: ImageBilling, size: ImageSize): (ImageSize & { tokens: number }) | undefined {
  const billed = billing.providerId === 'anthropic' ? anthropicBilledSize(size) : openaiModelBilledSize(size, billing.model);
  const long = Math.max(billed.width, billed.height, SMALLER_LONG_EDGE);
  const target = { width: Math.max(1, Math.floor((billed.width * SMALLER_LONG_EDGE) / long)), height: Math.max(1, Math.floor((billed.height * SMALLER_LONG_EDGE) / long)) };
  if (target.width >= size.width && target.height >= size.height) return undefined;
  const tokens = imageTokensFor(billing, target);
  return tokens < imageTokensFor(billing, size) ? { ...target, tokens } : undefined;
}
