// The web-standard globals core may use: present in Node 20, browsers and other JavaScript hosts.
// Checked only by src/core/tsconfig.json (which has no Node types); the rest of the project sees
// the same names from lib.dom and @types/node. Node-only globals (Buffer, setImmediate, process,
// require) are absent on purpose, so core cannot use them: it reaches Node through its ports.

declare function setTimeout(run: () => void, ms?: number): unknown;
declare function clearTimeout(timer: unknown): void;

declare class TextEncoder {
  encode(text?: string): Uint8Array<ArrayBuffer>;
  encodeInto(text: string, into: Uint8Array): { read: number; written: number };
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(bytes?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}

declare var crypto: {
  getRandomValues<T extends ArrayBufferView>(array: T): T;
  readonly subtle: { digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer> };
};

declare class URL {
  constructor(url: string | URL, base?: string | URL);
  href: string;
  readonly origin: string;
  protocol: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
  username: string;
  password: string;
  toString(): string;
}

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
  throwIfAborted(): void;
}
declare var AbortSignal: { prototype: AbortSignal; any(signals: AbortSignal[]): AbortSignal; timeout(ms: number): AbortSignal };

declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

type HeadersInit = [string, string][] | Record<string, string> | Headers;
declare class Headers {
  constructor(init?: HeadersInit);
  get(name: string): string | null;
  set(name: string, value: string): void;
  has(name: string): boolean;
  delete(name: string): void;
  forEach(visit: (value: string, name: string) => void): void;
}

type ReadableStreamReadResult<T> = { done: false; value: T } | { done: true; value?: undefined };
interface ReadableStreamDefaultReader<T> {
  read(): Promise<ReadableStreamReadResult<T>>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}
interface ReadableStreamDefaultController<T> {
  enqueue(chunk: T): void;
  close(): void;
  error(reason?: unknown): void;
}
declare class ReadableStream<T = Uint8Array> {
  constructor(source: { start?(controller: ReadableStreamDefaultController<T>): void; pull?(controller: ReadableStreamDefaultController<T>): void | Promise<void>; cancel?(reason?: unknown): void });
  getReader(): ReadableStreamDefaultReader<T>;
  cancel(reason?: unknown): Promise<void>;
}

type BodyInit = string | Uint8Array<ArrayBuffer> | ArrayBuffer | ReadableStream<Uint8Array>;
interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'error' | 'manual';
}

declare class Response {
  constructor(body?: BodyInit | null, init?: { status?: number; statusText?: string; headers?: HeadersInit });
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly body: ReadableStream<Uint8Array> | null;
  readonly url: string;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

declare function fetch(input: string | URL, init?: RequestInit): Promise<Response>;
