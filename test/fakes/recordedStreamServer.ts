/**
 * A local server on 127.0.0.1 that answers each POST to one path with the next recorded response:
 * the JSON events of a recording (vercel/ai's `*.chunks.txt`: one event per line), each sent as an
 * SSE event named by its `type`. Every request body is kept, so a test can check what was sent.
 */
import { readFileSync } from 'fs';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A `*.chunks.txt` file as responses: each starts at an event whose type opens a response. */
export function recordedResponses(file: string, opensResponse: (type: string) => boolean): string[][] {
  const responses: string[][] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const type = String((JSON.parse(line) as { type?: unknown }).type);
    if (opensResponse(type) || responses.length === 0) responses.push([]);
    responses[responses.length - 1].push(line);
  }
  return responses;
}

export class RecordedStreamServer {
  readonly requests: ReceivedRequest[] = [];
  private server?: Server;

  /** `path`: the endpoint the provider must call (e.g. /v1/responses); `responses`: served in order. */
  constructor(private readonly path: string, private readonly responses: string[][]) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (chunk: Buffer) => parts.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        if (req.method !== 'POST' || req.url !== this.path) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }));
          return;
        }
        this.requests.push({ path: req.url, headers: req.headers, body: JSON.parse(text) });
        const events = this.responses[this.requests.length - 1];
        if (!events) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'the recording has no more responses', type: 'invalid_request_error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const line of events) res.write(`event: ${String((JSON.parse(line) as { type?: unknown }).type)}\ndata: ${line}\n\n`);
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
