/**
 * A model server on 127.0.0.1 whose streamed answers never end, in a provider's real wire format
 * (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses). Each POST takes the next step of
 * its plan (the last step repeats):
 *
 *  - comments: an SSE comment every `commentEveryMs`, for ever (the connection is never idle);
 *  - unended event: one event whose `data:` lines never meet a blank line;
 *  - unended line: one `data:` line that never ends;
 *  - text / thinking / tool arguments: a started answer whose text, thinking (Anthropic thinking,
 *    `reasoning_content`, a Responses reasoning summary) or call arguments go on for ever;
 *  - signature: an Anthropic thinking block whose signature goes on for ever;
 *  - answer: a short complete answer "ok", as the real API sends it.
 *
 * Floods are written as fast as the client reads them; each stops when the client leaves
 * (`clientsLeft` counts those, `left(n)` waits for them), so a test can check the client closed the connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';

export type EndlessWire = 'anthropic' | 'openai-chat' | 'openai-responses';
export type EndlessStep = 'comments' | 'unended event' | 'unended line' | 'text' | 'thinking' | 'tool arguments' | 'signature' | 'answer';

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
const PIECE = 'All work and no play makes a long reply. '.repeat(40);

/** The events that open an answer, and one event of the flood for each step that floods. */
function anthropicParts(step: EndlessStep): { head: string[]; piece?: string; tail?: string[] } {
  const start = sse({ type: 'message_start', message: { id: 'msg_endless', type: 'message', role: 'assistant', content: [], model: 'claude-endless', usage: { input_tokens: 10, output_tokens: 1 } } }, 'message_start');
  const block = (index: number, content_block: unknown) => sse({ type: 'content_block_start', index, content_block }, 'content_block_start');
  const delta = (index: number, d: unknown) => sse({ type: 'content_block_delta', index, delta: d }, 'content_block_delta');
  switch (step) {
    case 'text':
      return { head: [start, block(0, { type: 'text', text: '' })], piece: delta(0, { type: 'text_delta', text: PIECE }) };
    case 'thinking':
      return { head: [start, block(0, { type: 'thinking', thinking: '', signature: '' })], piece: delta(0, { type: 'thinking_delta', thinking: PIECE }) };
    case 'signature':
      return { head: [start, block(0, { type: 'thinking', thinking: '', signature: '' }), delta(0, { type: 'thinking_delta', thinking: 'Short.' })], piece: delta(0, { type: 'signature_delta', signature: PIECE }) };
    case 'tool arguments':
      return { head: [start, block(0, { type: 'tool_use', id: 'toolu_endless', name: 'read_file', input: {} }), delta(0, { type: 'input_json_delta', partial_json: '{"path":"' })], piece: delta(0, { type: 'input_json_delta', partial_json: PIECE }) };
    default:
      return {
        head: [start, block(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'ok' })],
        tail: [sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'), sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }, 'message_delta'), sse({ type: 'message_stop' }, 'message_stop')],
      };
  }
}

function chatParts(step: EndlessStep): { head: string[]; piece?: string; tail?: string[] } {
  const chunk = (delta: unknown, finish: string | null = null) => sse({ id: 'chatcmpl-endless', object: 'chat.completion.chunk', created: 1, model: 'endless', choices: [{ index: 0, delta, finish_reason: finish }] });
  switch (step) {
    case 'text':
      return { head: [chunk({ role: 'assistant', content: '' })], piece: chunk({ content: PIECE }) };
    case 'thinking':
    case 'signature':
      return { head: [chunk({ role: 'assistant', content: null })], piece: chunk({ reasoning_content: PIECE }) };
    case 'tool arguments':
      return {
        head: [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_endless', type: 'function', function: { name: 'read_file', arguments: '{"path":"' } }] })],
        piece: chunk({ tool_calls: [{ index: 0, function: { arguments: PIECE } }] }),
      };
    default:
      return { head: [chunk({ role: 'assistant', content: 'ok' })], tail: [chunk({}, 'stop'), 'data: [DONE]\n\n'] };
  }
}

function responsesParts(step: EndlessStep): { head: string[]; piece?: string; tail?: string[] } {
  const event = (type: string, rest: Record<string, unknown>) => sse({ type, ...rest }, type);
  const created = event('response.created', { response: { id: 'resp_endless', object: 'response', status: 'in_progress', output: [] } });
  switch (step) {
    case 'text':
      return { head: [created], piece: event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: PIECE }) };
    case 'thinking':
    case 'signature':
      return { head: [created], piece: event('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: PIECE }) };
    case 'tool arguments':
      return {
        head: [created, event('response.output_item.added', { output_index: 0, item: { type: 'function_call', id: 'fc_1', call_id: 'call_endless', name: 'read_file', arguments: '' } })],
        piece: event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: PIECE }),
      };
    default:
      return {
        head: [created, event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'ok' })],
        tail: [event('response.completed', { response: { id: 'resp_endless', status: 'completed', output: [], usage: { input_tokens: 10, output_tokens: 2 } } })],
      };
  }
}

const PARTS = { anthropic: anthropicParts, 'openai-chat': chatParts, 'openai-responses': responsesParts };

export class EndlessStreamServer {
  private server?: Server;
  private served = 0;
  /** Requests whose client closed the connection while the flood was still going. */
  clientsLeft = 0;
  private waiting: Array<{ count: number; resolve(): void }> = [];
  /** The bodies of the requests received, parsed. */
  readonly bodies: unknown[] = [];

  constructor(
    private readonly wire: EndlessWire,
    private readonly plan: EndlessStep[],
    private readonly options: { commentEveryMs?: number } = {},
  ) {}

  get origin(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The base URL a provider takes for this wire: OpenAI's ends in /v1. */
  get baseUrl(): string {
    return this.wire === 'anthropic' ? this.origin : `${this.origin}/v1`;
  }

  /** Resolves once `count` clients have closed the connection while the flood was still going. */
  left(count: number): Promise<void> {
    if (this.clientsLeft >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ count, resolve }));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        this.bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        this.bodies.push(undefined);
      }
      const step = this.plan[Math.min(this.served++, this.plan.length - 1)];
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.on('close', () => {
        if (res.writableFinished) return;
        this.clientsLeft++;
        for (const w of this.waiting.filter((w) => w.count <= this.clientsLeft)) w.resolve();
        this.waiting = this.waiting.filter((w) => w.count > this.clientsLeft);
      });
      this.answer(step, res);
    });
  }

  private answer(step: EndlessStep, res: ServerResponse): void {
    if (step === 'comments') {
      res.write(': keep-alive\n\n');
      const timer = setInterval(() => res.write(': keep-alive\n\n'), this.options.commentEveryMs ?? 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (step === 'unended event') return this.flood(res, [], `data: ${PIECE}\n`);
    if (step === 'unended line') return this.flood(res, ['data: '], PIECE);
    const parts = PARTS[this.wire](step);
    if (!parts.piece) {
      res.end([...parts.head, ...(parts.tail ?? [])].join(''));
      return;
    }
    this.flood(res, parts.head, parts.piece);
  }

  /** Writes `head`, then `piece` again and again while the client reads, until it leaves. */
  private flood(res: ServerResponse, head: string[], piece: string): void {
    res.write(head.join(''));
    const block = Buffer.from(piece.repeat(Math.max(1, Math.floor(65_536 / piece.length))));
    const pump = () => {
      while (!res.destroyed) if (!res.write(block)) return void res.once('drain', pump);
    };
    pump();
  }
}
