/**
 * The HTTP machinery shared by the fake provider servers: a real `http` server on 127.0.0.1 with a
 * random port, a queue of scripted replies consumed one per request, every request recorded
 * (headers and parsed JSON body), and wire-level faults (connection reset, close, stall) at an
 * exact point of a stream. The format-specific fakes (anthropicServer.ts, openaiServer.ts) turn a
 * provider-neutral FakeReply into SSE events; this file only writes bytes.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, or undefined when it did not parse. */
  body: any;
  rawBody: string;
  /** True when the client went away before the server finished its answer (abort, timeout). */
  clientClosedEarly: boolean;
}

/** A part of a scripted answer: text, or a tool call whose arguments stream in fragments. */
export type FakePart = { text: string } | { toolCall: { id?: string; name: string; arguments: string } };

/**
 * Token usage to report. `input` counts uncached prompt tokens; each fake renders it in its own
 * format (OpenAI's prompt_tokens = input + cacheRead + cacheWrite, Anthropic reports them apart).
 */
export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/**
 * Where a stream breaks and how. `afterEvents` counts SSE events written before the fault;
 * `afterFirst: 'tool_args'` breaks right after the first tool-argument fragment, `'text'` after
 * the first text fragment.
 *  - reset: TCP reset (ECONNRESET at the client)
 *  - close: the socket closes without finishing the chunked body
 *  - stall: nothing more is written; the connection stays open until the client leaves
 *  - malformed: an event whose data is not JSON is written, then the stream ends normally
 *  - error_event: the provider's in-stream error (Anthropic `event: error` overloaded_error, OpenAI `{"error":…}`)
 *  - end: the body ends cleanly but early (no final events)
 */
export interface FakeFault {
  afterEvents?: number;
  afterFirst?: 'text' | 'tool_args';
  action: 'reset' | 'close' | 'stall' | 'malformed' | 'error_event' | 'end';
}

export type FakeReply =
  /** A streamed answer. `stop` defaults to tool_use when a part is a tool call, else end_turn. */
  | {
      type: 'reply';
      parts: FakePart[];
      /**
       * undefined: a small default usage; null: the provider's "no usage" (null fields, no usage chunk);
       * 'absent': no usage field anywhere (servers that never report usage).
       */
      usage?: FakeUsage | null | 'absent';
      stop?: 'end_turn' | 'tool_use' | 'max_tokens';
      fault?: FakeFault;
      /** Characters per text/argument fragment (default 7). */
      chunkChars?: number;
      /** Write the byte stream in pieces of this many bytes, to cut lines and characters apart. */
      splitBytes?: number;
      lineEnding?: '\n' | '\r\n';
      /** Insert a `: keep-alive` comment (and Anthropic `ping` events) between events. */
      comments?: boolean;
      /** Put a line that is no SSE field (HTML, bare JSON, a misspelt field) before every event; SSE says to ignore it. */
      garbage?: boolean;
      /** Wait this long before sending anything (headers included). */
      delayMs?: number;
    }
  /** Any status, body (objects are sent as JSON) and headers. */
  | { type: 'error'; status: number; body: unknown; headers?: Record<string, string> }
  /** The provider's real "prompt is too long" error. */
  | { type: 'context_too_long'; promptTokens?: number; limit?: number }
  /** The provider's real 429, with `retry-after` when given. */
  | { type: 'rate_limited'; retryAfterSeconds?: number; headers?: Record<string, string> }
  /** Anthropic 529 overloaded_error; OpenAI-compatible 503. */
  | { type: 'overloaded' }
  /** The provider's real 500 body. */
  | { type: 'server_error'; status?: number }
  /** Exact bytes: for malformed streams and servers that misbehave in ways no FakeReply covers. */
  | { type: 'raw'; status?: number; headers?: Record<string, string>; chunks: string[]; then?: 'end' | 'reset' | 'close' | 'stall' };

/** A scripted reply, or a function that decides from the request (agent-loop tests). */
export type ScriptItem = FakeReply | ((request: RecordedRequest) => FakeReply);

/** What the format layer hands to the wire layer. */
export type WireResponse =
  | { kind: 'body'; status: number; headers: Record<string, string>; body: string }
  | {
      kind: 'events';
      status: number;
      headers: Record<string, string>;
      /** Each entry is one complete SSE event, blank line included. */
      events: string[];
      /** Events written before `then` happens; default all of them. */
      cut?: number;
      then: 'end' | 'reset' | 'close' | 'stall';
      splitBytes?: number;
      delayMs?: number;
    };

export interface ScriptedServerOptions {
  /** Reply used when the queue is empty (default: a 400 saying the script ran out). */
  fallback?: ScriptItem;
}

export abstract class ScriptedServer {
  /** Every request to the server's chat endpoint, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Requests to other paths (a client asking for the model list, say), in order. */
  readonly otherRequests: RecordedRequest[] = [];
  private readonly queue: ScriptItem[] = [];
  private server?: Server;
  private port = 0;
  private readonly open = new Set<ServerResponse>();
  private readonly departures = new WeakMap<RecordedRequest, Promise<void>>();

  constructor(protected readonly options: ScriptedServerOptions = {}) {}

  /** Resolves once the client of `request` went away before the answer ended (an abort, a timeout). */
  clientLeft(request: RecordedRequest): Promise<void> {
    const left = this.departures.get(request);
    if (!left) throw new Error('not a request this server received');
    return left;
  }

  /** Base URL for the provider's `baseUrl` setting. */
  abstract get url(): string;

  protected get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Turns a reply into bytes for this server's wire format. */
  protected abstract render(reply: FakeReply, request: RecordedRequest): WireResponse;

  /** Whether a request goes to the endpoint this server scripts (kept in `requests`); others go to `otherRequests`. */
  protected isScripted(_request: RecordedRequest): boolean {
    return true;
  }

  /** A real server's own checks (auth, request shape); returns an error reply or undefined. */
  protected abstract validate(request: RecordedRequest): FakeReply | undefined;

  /** Queues replies, consumed one per request in order. */
  enqueue(...items: ScriptItem[]): this {
    this.queue.push(...items);
    return this;
  }

  /** Replies not consumed yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** Drops the replies not consumed yet (a script of steps a test skipped); returns how many. */
  dropPending(): number {
    return this.queue.splice(0).length;
  }

  /** The last request's JSON body. */
  get lastBody(): any {
    return this.requests[this.requests.length - 1]?.body;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.socket?.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, rawBody, clientClosedEarly: false };
    (this.isScripted(recorded) ? this.requests : this.otherRequests).push(recorded);
    this.open.add(res);
    let leftEarly!: () => void;
    this.departures.set(recorded, new Promise<void>((resolve) => (leftEarly = resolve)));
    res.on('close', () => {
      this.open.delete(res);
      if (res.writableFinished) return;
      recorded.clientClosedEarly = true;
      leftEarly();
    });

    const invalid = this.validate(recorded);
    const item = invalid ?? this.queue.shift() ?? this.options.fallback ?? { type: 'error', status: 400, body: { error: { message: 'fake server: no scripted reply left', type: 'invalid_request_error' } } };
    const reply = typeof item === 'function' ? item(recorded) : item;
    await this.write(res, this.render(reply, recorded));
  }

  private async write(res: ServerResponse, wire: WireResponse): Promise<void> {
    if (wire.kind === 'body') {
      res.writeHead(wire.status, { 'content-type': 'application/json', ...wire.headers });
      res.end(wire.body);
      return;
    }
    if (wire.delayMs) await sleep(wire.delayMs);
    if (res.destroyed) return;
    res.writeHead(wire.status, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...wire.headers });
    res.flushHeaders();
    const count = Math.min(wire.cut ?? wire.events.length, wire.events.length);
    const bytes = Buffer.from(wire.events.slice(0, count).join(''), 'utf8');
    const step = wire.splitBytes && wire.splitBytes > 0 ? wire.splitBytes : bytes.length || 1;
    for (let offset = 0; offset < bytes.length; offset += step) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(bytes.subarray(offset, offset + step), () => resolve()));
      if (step < bytes.length) await new Promise((resolve) => setImmediate(resolve));
    }
    switch (wire.then) {
      case 'end':
        res.end();
        return;
      case 'stall':
        return; // left open; close() or the client ends it
      case 'reset':
      case 'close':
        // Let the bytes already written reach the client before the connection breaks.
        await sleep(30);
        if (wire.then === 'reset') res.socket?.resetAndDestroy();
        else res.socket?.destroy();
        return;
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Splits text into fragments of `size` characters (code points never cut). */
export function fragments(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/** Lines a broken proxy might mix into a stream; none of them is an SSE field the parser uses. */
const GARBAGE_LINES = ['<html><body><h1>502 Bad Gateway</h1></body></html>', '{"choices":[{"delta":{"content":"not an SSE line"}}]}', 'datum: {"misspelt":"field"}', 'HTTP/1.1 200 OK'];

/** The n-th garbage line, ending in `eol` (no blank line: it joins the event that follows). */
export function garbageLine(n: number, eol: string): string {
  return `${GARBAGE_LINES[n % GARBAGE_LINES.length]}${eol}`;
}

/** The default usage of a reply without one. */
export const DEFAULT_FAKE_USAGE: FakeUsage = { input: 42, output: 7 };

/** Index of the first event with `tag`, for `afterFirst` faults. */
export function cutIndex(tags: Array<string | undefined>, fault: FakeFault | undefined): number | undefined {
  if (!fault) return undefined;
  if (fault.afterFirst) {
    const at = tags.indexOf(fault.afterFirst);
    return at < 0 ? tags.length : at + 1;
  }
  return fault.afterEvents ?? 0;
}

/** Applies a reply's fault to its rendered events. */
export function withFault(
  events: string[],
  tags: Array<string | undefined>,
  fault: FakeFault | undefined,
  extra: { malformed: string; errorEvent: string },
): { events: string[]; cut?: number; then: 'end' | 'reset' | 'close' | 'stall' } {
  const cut = cutIndex(tags, fault);
  if (!fault || cut === undefined) return { events, then: 'end' };
  switch (fault.action) {
    case 'malformed':
      return { events: [...events.slice(0, cut), extra.malformed], then: 'end' };
    case 'error_event':
      return { events: [...events.slice(0, cut), extra.errorEvent], then: 'end' };
    default:
      return { events, cut, then: fault.action };
  }
}

/** Renders the simple JSON-body replies shared by both formats. */
export function jsonBody(status: number, body: unknown, headers: Record<string, string> = {}): WireResponse {
  return { kind: 'body', status, headers, body: typeof body === 'string' ? body : JSON.stringify(body) };
}
