/**
 * Servers on 127.0.0.1 that misbehave the way a model server the user points Tally at might:
 *
 *  - RecordingServer: records every request (method, path, headers, body) and answers like a
 *    model server would (a model list for GET, an error for anything else), to stand for "another
 *    origin" that must never see a key or a prompt.
 *  - RedirectingServer: answers every request with one redirect status and a Location, either on
 *    another origin (`target`) or on its own (`samePath` maps the path).
 *  - StallingServer: sends the headers of a 200 JSON answer and then nothing, until the client leaves.
 *  - FloodingServer: sends a JSON answer (status 200 unless told) of `limitBytes`, as fast as the
 *    client reads it, and stops when the client disconnects.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

abstract class LocalServer {
  private server?: Server;
  readonly requests: SeenRequest[] = [];

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(seen);
        this.answer(seen, res, req);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  protected abstract answer(request: SeenRequest, res: ServerResponse, req: IncomingMessage): void;
}

export class RecordingServer extends LocalServer {
  protected answer(request: SeenRequest, res: ServerResponse): void {
    if (request.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'model-elsewhere', object: 'model', display_name: 'Model elsewhere' }], has_more: false }));
      return;
    }
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'received by another origin' } }));
  }

  /** Every header value and body this server received, as one text to search. */
  seenText(): string {
    return this.requests.map((r) => `${r.method} ${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`).join('\n');
  }
}

export class RedirectingServer extends LocalServer {
  constructor(private readonly redirect: { status: number; target?: string; samePath?: (path: string) => string | undefined }) {
    super();
  }

  protected answer(request: SeenRequest, res: ServerResponse): void {
    const same = this.redirect.samePath?.(request.path);
    const location = same ?? (this.redirect.target ? `${this.redirect.target}${request.path}` : undefined);
    if (!location) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(this.redirect.status, { location, 'content-type': 'text/plain' });
    res.end(`moved to ${location}`);
  }
}

export class StallingServer extends LocalServer {
  /** Requests whose client went away while the server was still stalling. */
  clientsGone = 0;
  private waiting: Array<{ count: number; resolve(): void }> = [];

  /** Resolves once `count` clients have gone away. */
  gone(count: number): Promise<void> {
    if (this.clientsGone >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ count, resolve }));
  }

  protected answer(_request: SeenRequest, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    res.on('close', () => {
      this.clientsGone++;
      for (const w of this.waiting.filter((w) => w.count <= this.clientsGone)) w.resolve();
      this.waiting = this.waiting.filter((w) => w.count > this.clientsGone);
    });
  }
}

export class FloodingServer extends LocalServer {
  bytesSent = 0;
  /** Set when the client closed the connection before the body ended. */
  clientLeft = false;
  private leftEarly!: () => void;
  /** Resolves once the client closed the connection before the body ended. */
  readonly left = new Promise<void>((resolve) => (this.leftEarly = resolve));

  constructor(private readonly flood: { limitBytes: number; status?: number }) {
    super();
  }

  protected answer(_request: SeenRequest, res: ServerResponse): void {
    res.writeHead(this.flood.status ?? 200, { 'content-type': 'application/json' });
    const piece = Buffer.from(`${JSON.stringify({ id: 'x'.repeat(60), object: 'model' })},`.repeat(512));
    res.write('{"object":"list","data":[');
    const pump = () => {
      while (!res.destroyed && this.bytesSent < this.flood.limitBytes) {
        this.bytesSent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end('{"id":"last"}]}');
    };
    res.on('close', () => {
      if (res.writableFinished) return;
      this.clientLeft = true;
      this.leftEarly();
    });
    pump();
  }
}
