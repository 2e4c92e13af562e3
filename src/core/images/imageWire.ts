/**
 * An image in each provider's own form (bytes as base64, from imageData.ts):
 * - Anthropic Messages: `{type:"image", source:{type:"base64", media_type, data}}`;
 * - OpenAI Chat Completions: a content part `{type:"image_url", image_url:{url:"data:…;base64,…", detail}}`;
 * - OpenAI Responses: a content part `{type:"input_image", image_url:"data:…;base64,…", detail}` (a string, not an object).
 * An image whose bytes are not at hand is sent as a text line saying so, never as a broken part.
 */
import { imageDataOf, unreadableImageText } from './imageData';
import type { ImagePart } from './imagePart';

/** The detail OpenAI is asked for: "auto", which bills as "high" for the images Tally sends. */
export const OPENAI_IMAGE_DETAIL = 'auto';

export type AnthropicImageBlock = { type: 'image'; source: { type: 'base64'; media_type: string; data: string } } | { type: 'text'; text: string };
export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail: string } };
export type ResponsesContentPart = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: string };

const dataUrl = (part: ImagePart, data: string) => `data:${part.mediaType};base64,${data}`;

export function anthropicImageBlock(part: ImagePart): AnthropicImageBlock {
  const data = imageDataOf(part);
  return data === undefined ? { type: 'text', text: unreadableImageText(part) } : { type: 'image', source: { type: 'base64', media_type: part.mediaType, data } };
}

export function chatImagePart(part: ImagePart): ChatContentPart {
  const data = imageDataOf(part);
  return data === undefined ? { type: 'text', text: unreadableImageText(part) } : { type: 'image_url', image_url: { url: dataUrl(part, data), detail: OPENAI_IMAGE_DETAIL } };
}

export function responsesImagePart(part: ImagePart): ResponsesContentPart {
  const data = imageDataOf(part);
  return data === undefined ? { type: 'input_text', text: unreadableImageText(part) } : { type: 'input_image', image_url: dataUrl(part, data), detail: OPENAI_IMAGE_DETAIL };
}
