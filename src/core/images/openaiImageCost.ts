/**
 * What an image costs on OpenAI's models, by the formulas of OpenAI's vision guide ("Calculating
 * costs"). Two families:
 *
 * Tiles (GPT-4o, GPT-4.1, GPT-5, o1, o3…; `detail: "high"` or `"auto"`): the image is fitted inside
 * 2,048 × 2,048, then scaled down so its shortest side is at most 768 pixels; it costs a base plus a
 * price per 512-pixel tile that covers it. `detail: "low"` costs the base whatever the size.
 *
 * Patches (gpt-4.1-mini, gpt-4.1-nano, o4-mini, gpt-5-mini, gpt-5-nano): the image is covered by
 * 32-pixel patches; past 1,536 patches it is scaled down (keeping its aspect ratio) until 1,536
 * cover it; the patch count, capped at 1,536, is multiplied by the model's factor.
 */
import type { ImageDetail, ImageSize } from './imageSize';

interface TilePrice {
  base: number;
  tile: number;
}

/** The guide's table for tile-billed models; a model not listed (another server's) uses GPT-4o's. */
const TILE_PRICES: readonly (readonly [RegExp, TilePrice])[] = [
  [/^gpt-4o-mini\b/, { base: 2833, tile: 5667 }],
  [/^gpt-5(-chat)?\b/, { base: 70, tile: 140 }],
  [/^o(1|3)\b/, { base: 75, tile: 150 }],
  [/^computer-use-preview\b/, { base: 65, tile: 129 }],
];
const DEFAULT_TILE_PRICE: TilePrice = { base: 85, tile: 170 };

/** The guide's multipliers for patch-billed models. */
const PATCH_MULTIPLIERS: readonly (readonly [RegExp, number])[] = [
  [/^gpt-(4\.1|5)-mini\b/, 1.62],
  [/^gpt-(4\.1|5)-nano\b/, 2.46],
  [/^o4-mini\b/, 1.72],
];

const TILE = 512;
const FIT = 2048;
const SHORT_SIDE = 768;
const PATCH = 32;
const MAX_PATCHES = 1536;

/** A model id as OpenAI names it: lower case, without a router's "openai/" prefix. */
function modelName(model: string | undefined): string {
  return (model ?? '').toLowerCase().replace(/^.*\//, '');
}

export function openaiPatchMultiplier(model: string | undefined): number | undefined {
  const name = modelName(model);
  return PATCH_MULTIPLIERS.find(([pattern]) => pattern.test(name))?.[1];
}

function tilePrice(model: string | undefined): TilePrice {
  const name = modelName(model);
  return TILE_PRICES.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT_TILE_PRICE;
}

/** The size OpenAI tiles an image at in high detail. */
export function openaiBilledSize(size: ImageSize): ImageSize {
  let { width, height } = size;
  const fit = Math.min(1, FIT / Math.max(width, height));
  width *= fit;
  height *= fit;
  const short = Math.min(1, SHORT_SIDE / Math.min(width, height));
  return { width: Math.max(1, Math.floor(width * short)), height: Math.max(1, Math.floor(height * short)) };
}

const patchesOf = (size: ImageSize): number => Math.ceil(size.width / PATCH) * Math.ceil(size.height / PATCH);

/** The size a patch-billed model sees: the image itself when 1,536 patches cover it, else scaled down so they do. */
export function patchBilledSize(size: ImageSize): ImageSize {
  if (patchesOf(size) <= MAX_PATCHES) return { width: size.width, height: size.height };
  let scale = Math.sqrt((PATCH * PATCH * MAX_PATCHES) / (size.width * size.height));
  // Then down to a whole number of patches along the side that needs it most.
  const across = (size.width * scale) / PATCH;
  const down = (size.height * scale) / PATCH;
  scale *= Math.min(Math.floor(across) / across, Math.floor(down) / down);
  return { width: Math.max(1, Math.floor(size.width * scale)), height: Math.max(1, Math.floor(size.height * scale)) };
}

export function openaiImageTokens(size: ImageSize, detail: ImageDetail = 'auto', model?: string): number {
  const multiplier = openaiPatchMultiplier(model);
  if (multiplier !== undefined) return Math.ceil(Math.min(MAX_PATCHES, patchesOf(patchBilledSize(size))) * multiplier);
  const price = tilePrice(model);
  if (detail === 'low') return price.base;
  const billed = openaiBilledSize(size);
  const tiles = Math.ceil(billed.width / TILE) * Math.ceil(billed.height / TILE);
  return price.base + price.tile * tiles;
}

/** The size the model bills an image at (what scaling down to it costs nothing). */
export function openaiModelBilledSize(size: ImageSize, model?: string): ImageSize {
  return openaiPatchMultiplier(model) === undefined ? openaiBilledSize(size) : patchBilledSize(size);
}
