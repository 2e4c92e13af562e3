/**
 * The checks the providers make on the images a request carries, shared by the fake servers:
 * a media type they take, base64 that decodes, and bytes that are the image the type says (the
 * real APIs refuse a PNG sent as image/jpeg: "Image does not match the provided media type").
 */
const SIGNATURES: Record<string, number[]> = {
  'image/png': [0x89, 0x50, 0x4e, 0x47],
  'image/jpeg': [0xff, 0xd8, 0xff],
  'image/gif': [0x47, 0x49, 0x46, 0x38],
  'image/webp': [0x52, 0x49, 0x46, 0x46],
};

/** The problem with one image's media type and base64 data, or undefined. */
export function imageDataProblem(where: string, mediaType: unknown, data: unknown): string | undefined {
  if (typeof mediaType !== 'string' || !SIGNATURES[mediaType]) return `${where}.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  if (typeof data !== 'string' || data.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) return `${where}.data: The image data is not valid base64.`;
  const bytes = Buffer.from(data, 'base64');
  if (!SIGNATURES[mediaType].every((b, i) => bytes[i] === b)) return `${where}: Image does not match the provided media type ${mediaType}`;
  return undefined;
}

/** A `data:` URL's problem (OpenAI's image_url), or undefined. */
export function dataUrlProblem(where: string, url: unknown): string | undefined {
  const match = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  if (!match) return `Invalid '${where}': expected a URL or a base64 data URL.`;
  return imageDataProblem(where, match[1], match[2]);
}

const DETAILS = new Set(['low', 'high', 'auto']);

/** Chat Completions: a user message's content parts. */
export function chatContentProblem(where: string, content: unknown): string | undefined {
  if (typeof content === 'string') return undefined;
  if (!Array.isArray(content) || content.length === 0) return `Invalid '${where}': expected a string or a non-empty array of content parts.`;
  for (const [j, part] of content.entries()) {
    if (part?.type === 'text' && typeof part.text === 'string') continue;
    if (part?.type !== 'image_url') return `Invalid value: '${part?.type}'. Supported values are: 'text' and 'image_url'.`;
    if (part.image_url?.detail !== undefined && !DETAILS.has(part.image_url.detail)) return `Invalid value for '${where}[${j}].image_url.detail'.`;
    const problem = dataUrlProblem(`${where}[${j}].image_url.url`, part.image_url?.url);
    if (problem) return problem;
  }
  return undefined;
}

/** Responses API: an input message's content parts (input_image's image_url is a string). */
export function responsesContentProblem(where: string, content: unknown): string | undefined {
  if (typeof content === 'string') return undefined;
  if (!Array.isArray(content) || content.length === 0) return `Invalid '${where}': expected a string or a non-empty array.`;
  for (const [j, part] of content.entries()) {
    if (part?.type === 'input_text' && typeof part.text === 'string') continue;
    if (part?.type !== 'input_image') return `Invalid value: '${part?.type}'. Supported values are: 'input_text', 'input_image' and 'input_file'.`;
    if (typeof part.image_url !== 'string') return `Invalid type for '${where}[${j}].image_url': expected an image URL, but got an object instead.`;
    if (part.detail !== undefined && !DETAILS.has(part.detail)) return `Invalid value for '${where}[${j}].detail'.`;
    const problem = dataUrlProblem(`${where}[${j}].image_url`, part.image_url);
    if (problem) return problem;
  }
  return undefined;
}
