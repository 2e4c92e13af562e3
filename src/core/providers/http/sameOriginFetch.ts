/**
 * Every HTTP request Tally sends goes through here, so that a key or a prompt never leaves the
 * origin the user chose. fetch's own redirect handling drops only `Authorization` on a
 * cross-origin hop: a custom header such as Anthropic's `x-api-key` would travel on, and a 307 or
 * 308 sends the body (the prompt) again. So redirects are handled by hand: one to the same origin
 * is followed the way fetch would (301/302 turn a POST into a GET, 303 turns anything but GET and
 * HEAD into a GET and drops the body, 307/308 keep both), at most MAX_REDIRECTS times; one to
 * another origin is not followed at all and becomes a RedirectError that names where it pointed.
 */
import { ByteChunks, sendBlocks } from './bodyBytes';
import type { FetchLike } from './httpStream';

export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A redirect Tally refused to follow; the message says where the server tried to send the request. */
export class RedirectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedirectError';
  }
}

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function describeTarget(location: string, base: URL): string {
  try {
    return clip(new URL(location, base).href);
  } catch {
    return clip(location);
  }
}

/** Whether a body-carrying request is sent as a GET without body after this redirect (the fetch standard's rule). */
function becomesGet(status: number, method: string): boolean {
  if (status === 303) return method !== 'GET' && method !== 'HEAD';
  return (status === 301 || status === 302) && method === 'POST';
}

function withoutBodyHeaders(headers: RequestInit['headers']): Record<string, string> {
  const kept: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    if (!name.startsWith('content-')) kept[name] = value;
  });
  return kept;
}

/** fetch's init, whose body may also be bytes in chunks: sent in order as one body. */
export type SendInit = Omit<RequestInit, 'body'> & { body?: RequestInit['body'] | ByteChunks };

/**
 * A byte body as fetch sends it without copying: fetch copies a Uint8Array body when it takes it,
 * and again for every request it may redirect (a tee that clones each chunk), which for a long
 * session's 13 MB body was three copies and most of the garbage a turn made. A stream is used as
 * is, in pieces of about 64 KB; the length still goes in Content-Length, so the server gets the same
 * request as before.
 * One stream per send: a redirect that keeps the body sends it again from a new stream.
 */
export function streamedBody(init: SendInit): RequestInit {
  const body = init.body;
  const parts = body instanceof ByteChunks ? body.parts : body instanceof Uint8Array ? [body] : undefined;
  if (!parts) return init as RequestInit;
  const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const headers = new Headers(init.headers);
  headers.set('content-length', String(length));
  // One piece of about 64 KB per pull (sendBlocks): a long session's body is about two parts a message.
  const blocks = sendBlocks(parts);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = blocks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  return { ...init, headers, body: stream, duplex: 'half' } as RequestInit;
}

/**
 * Sends one request like fetch, following redirects only within the origin of `url`.
 * Throws RedirectError for a redirect to another origin, to an address that is not a URL, or after
 * MAX_REDIRECTS hops; the redirect's own body is discarded unread.
 */
export async function fetchSameOrigin(fetchFn: FetchLike, url: string, init: SendInit): Promise<Response> {
  const origin = new URL(url).origin;
  let current = url;
  let request: SendInit = { ...init, redirect: 'manual' };
  for (let hop = 0; ; hop++) {
    const response = await fetchFn(current, streamedBody(request));
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    const here = new URL(current);
    let next: URL;
    try {
      next = new URL(location, here);
    } catch {
      throw new RedirectError(`The server at ${origin} redirected to "${clip(location)}", which is not an address; Tally did not follow it.`);
    }
    if (next.origin !== origin) {
      throw new RedirectError(`The server at ${origin} redirected to ${describeTarget(location, here)} (another origin); Tally did not follow it, so neither your key nor your prompt was sent there.`);
    }
    if (hop + 1 > MAX_REDIRECTS) throw new RedirectError(`The server at ${origin} redirected more than ${MAX_REDIRECTS} times; Tally stopped following.`);
    const method = (request.method ?? 'GET').toUpperCase();
    if (becomesGet(response.status, method)) request = { ...request, method: 'GET', body: undefined, headers: withoutBodyHeaders(request.headers) };
    next.hash = '';
    current = next.href;
  }
}
