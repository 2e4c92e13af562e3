import { looksBinary } from '../../toolOutput/binary';

/** How a response's body is read: HTML made readable, other text as it is, anything else refused. */
export type BodyKind = 'html' | 'text' | 'binary';

const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/x-sh',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/sql',
  'application/graphql',
  'application/x-ndjson',
  'application/ld+json',
]);

/** The media type without parameters, lower-cased ("text/html"), or undefined when none was sent. */
export function mediaType(contentType: string | undefined): string | undefined {
  const essence = contentType?.split(';')[0].trim().toLowerCase();
  return essence || undefined;
}

/** What the body is, from its media type; without one, from its first bytes. */
export function bodyKind(type: string | undefined, body: Uint8Array): BodyKind {
  if (type === undefined) {
    if (looksBinary(body)) return 'binary';
    return /^\s*<(!doctype\s+html|html|head|body)\b/i.test(latin1(body.subarray(0, 512))) ? 'html' : 'text';
  }
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || TEXT_APPLICATION_TYPES.has(type) || type.endsWith('+json') || type.endsWith('+xml')) return 'text';
  return 'binary';
}

/** The body as text: its byte-order mark, else the header's charset, else (HTML) a meta tag's, else UTF-8. */
export function decodeBody(body: Uint8Array, contentType: string | undefined, kind: BodyKind): { text: string; charset: string; note?: string } {
  const label = bomCharset(body) ?? headerCharset(contentType) ?? (kind === 'html' ? metaCharset(body) : undefined) ?? 'utf-8';
  try {
    const decoder = new TextDecoder(label);
    return { text: decoder.decode(body), charset: label.toLowerCase() };
  } catch {
    return { text: new TextDecoder('utf-8').decode(body), charset: 'utf-8', note: `the page names a character set this reader does not know ("${label.slice(0, 40)}"); read as UTF-8` };
  }
}

function bomCharset(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}

function headerCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1] : undefined;
}

/** `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…; charset=…">` in the first 4 KB, as browsers look for it. */
function metaCharset(body: Uint8Array): string | undefined {
  const head = latin1(body.subarray(0, 4096));
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return undefined;
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return text;
}
