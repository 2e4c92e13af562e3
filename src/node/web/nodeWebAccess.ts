import * as http from 'http';
import * as https from 'https';
import { isIP } from 'net';
import type { Readable } from 'stream';
import * as zlib from 'zlib';
import { WebFetchError, type ReadablePage, type WebAccess, type WebRequest, type WebResponse } from '../../core/ports/webAccess';
import { localRange } from './addressRanges';
import { guardedLookup, systemResolver, type ResolveHost } from './guardedLookup';

export interface WebLimits {
  /** The largest body read, after any content encoding is undone. */
  maxBytes: number;
  /** From the request to the connection (TLS included). */
  connectTimeoutMs: number;
  /** From the request to the body's last byte. */
  totalTimeoutMs: number;
}

export const DEFAULT_WEB_LIMITS: WebLimits = { maxBytes: 5 * 1024 * 1024, connectTimeoutMs: 10_000, totalTimeoutMs: 30_000 };

/** The only headers a fetch sends: no cookies, no keys, nothing of the user's. */
export const FETCH_HEADERS = {
  'User-Agent': 'Tally-fetch_url/1 (+https://github.com/tally-dev/tally)',
  Accept: 'text/html, application/xhtml+xml, text/*;q=0.9, application/json;q=0.8, */*;q=0.1',
};

export interface NodeWebOptions {
  /** Makes HTML readable (in a worker thread in the extension and the CLI). */
  readable(html: string, url: string): Promise<ReadablePage>;
  resolveHost?: ResolveHost;
  limits?: Partial<WebLimits>;
}

/** The web as fetch_url reaches it from Node: one fresh connection per GET, its address checked as it connects, bounded in size and time. */
export function nodeWebAccess(options: NodeWebOptions): WebAccess {
  const limits = { ...DEFAULT_WEB_LIMITS, ...options.limits };
  const resolveHost = options.resolveHost ?? systemResolver;
  return {
    get: (request) => get(request, limits, resolveHost),
    readable: (html, url) => options.readable(html, url),
  };
}

function get(request: WebRequest, limits: WebLimits, resolveHost: ResolveHost): Promise<WebResponse> {
  const url = new URL(request.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // A literal address never goes through lookup: it is checked here.
  if (isIP(host) && !request.allowPrivate) {
    const range = localRange(host);
    if (range) return Promise.reject(new WebFetchError(`${host} is ${range}; it is fetched only if the user allows this host`, 'private-address', { host: url.hostname, address: host, range }));
  }
  return new Promise<WebResponse>((resolve, reject) => {
    let settled = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const finish = (error: Error | undefined, response?: WebResponse) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      if (error) {
        req.destroy();
        reject(error instanceof WebFetchError ? error : new WebFetchError(error.message, 'network'));
      } else resolve(response!);
    };
    const onAbort = () => finish(new WebFetchError('the turn was cancelled', 'cancelled'));
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      headers: FETCH_HEADERS,
      agent: false,
      lookup: guardedLookup(resolveHost, request.allowPrivate),
      ...(isIP(host) ? {} : { servername: host }),
    });
    timers.push(setTimeout(() => finish(new WebFetchError(`no connection within ${seconds(limits.connectTimeoutMs)}`, 'connect-timeout')), limits.connectTimeoutMs));
    timers.push(setTimeout(() => finish(new WebFetchError(`the page did not arrive whole within ${seconds(limits.totalTimeoutMs)}`, 'timeout')), limits.totalTimeoutMs));
    if (request.signal.aborted) return onAbort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timers[0])));
    req.on('error', (error) => finish(error));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const base = { status, address: req.socket?.remoteAddress, ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}) };
      if (status >= 300 && status < 400) {
        res.resume();
        return finish(undefined, { ...base, body: new Uint8Array(0), ...(res.headers.location ? { location: res.headers.location } : {}) });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) return finish(tooLarge(limits, `it says ${declared.toLocaleString('en-US')} bytes`));
      let body: Readable;
      try {
        body = decoded(res);
      } catch (error) {
        return finish(error as Error);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) return finish(tooLarge(limits, 'it sent more'));
        chunks.push(chunk);
      });
      body.on('error', (error) => finish(new WebFetchError(`the body could not be read: ${error.message}`, 'network')));
      body.on('end', () => finish(undefined, { ...base, body: new Uint8Array(Buffer.concat(chunks)) }));
    });
    req.end();
  });
}

/** The body with its content encoding undone (a server may compress although none was asked for). */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return res;
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return res.pipe(zlib.createInflate());
  if (encoding === 'br') return res.pipe(zlib.createBrotliDecompress());
  throw new WebFetchError(`the body is encoded as "${encoding.slice(0, 40)}", which is not read`, 'network');
}

function tooLarge(limits: WebLimits, why: string): WebFetchError {
  return new WebFetchError(`the page is larger than ${(limits.maxBytes / 1024 / 1024).toFixed(limits.maxBytes % (1024 * 1024) ? 1 : 0)} MB (${why}); not read`, 'too-large');
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}
