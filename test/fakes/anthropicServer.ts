/**
 * A local server speaking Anthropic's Messages API (POST /v1/messages, streaming): message_start
 * with usage (cache_creation_input_tokens / cache_read_input_tokens), content_block_start /
 * content_block_delta (text_delta, input_json_delta) / content_block_stop, ping, message_delta with
 * stop_reason and output_tokens, message_stop; the real error bodies; and the checks the real API
 * makes that matter to Tally (API key, anthropic-version, max_tokens, at most 4 cache_control
 * blocks, every tool_use answered by a tool_result in the next message, non-empty text blocks, and
 * with thinking on: budget below max_tokens, no temperature, a tool loop's turn starting with its thinking).
 *
 *   const server = await new FakeAnthropicServer({ apiKey: 'sk-ant-test' }).start();
 *   server.enqueue({ type: 'reply', parts: [{ text: 'Hello' }, { toolCall: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] });
 *   createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: server.url });
 *   …; server.requests[0].body; await server.close();
 */
import { imageDataProblem } from './imageChecks';
import {
  DEFAULT_FAKE_USAGE,
  ScriptedServer,
  fragments,
  garbageLine,
  jsonBody,
  withFault,
  type FakeReply,
  type RecordedRequest,
  type ScriptedServerOptions,
  type WireResponse,
} from './scriptedServer';

export interface FakeAnthropicOptions extends ScriptedServerOptions {
  /** When set, requests must carry this `x-api-key`. */
  apiKey?: string;
  /** Apply the real API's request checks (default true). */
  validate?: boolean;
}

function errorBody(type: string, message: string): unknown {
  return { type: 'error', error: { type, message } };
}

/** The real API's checks on a request body; the first problem's message, or undefined. */
export function anthropicRequestProblem(body: any): string | undefined {
  if (!body || typeof body !== 'object') return 'Request body must be a JSON object';
  if (typeof body.model !== 'string') return 'model: Field required';
  if (typeof body.max_tokens !== 'number') return 'max_tokens: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Field required';
  let cacheBlocks = 0;
  const countCache = (block: any) => {
    if (block && typeof block === 'object' && block.cache_control) cacheBlocks++;
  };
  if (Array.isArray(body.system)) body.system.forEach(countCache);
  if (Array.isArray(body.tools)) body.tools.forEach(countCache);
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i];
    if (message.role !== 'user' && message.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (!Array.isArray(content) || content.length === 0) return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    content.forEach(countCache);
    for (const [j, block] of content.entries()) {
      if (block.type === 'text' && !block.text) return 'messages: text content blocks must be non-empty';
      if (block.type === 'image') {
        if (message.role !== 'user') return `messages.${i}.content.${j}: images are only accepted in user messages`;
        if (block.source?.type !== 'base64') return `messages.${i}.content.${j}.image.source: Input tag '${block.source?.type}' found using 'type' does not match any of the expected tags: 'base64', 'url'`;
        const problem = imageDataProblem(`messages.${i}.content.${j}.image.source.base64`, block.source.media_type, block.source.data);
        if (problem) return problem;
      }
    }
    const uses = content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id as string);
    if (uses.length) {
      const next = body.messages[i + 1];
      const nextContent = next && Array.isArray(next.content) ? next.content : [];
      const answered = new Set(next?.role === 'user' ? nextContent.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id) : []);
      const missing = uses.filter((id: string) => !answered.has(id));
      if (missing.length) {
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
    const results = content.filter((b: any) => b.type === 'tool_result');
    if (results.length) {
      const previous = body.messages[i - 1];
      const prevContent = previous && Array.isArray(previous.content) ? previous.content : [];
      const used = new Set(previous?.role === 'assistant' ? prevContent.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id) : []);
      const stray = results.find((b: any) => !used.has(b.tool_use_id));
      if (stray) {
        return `messages.${i}.content.${content.indexOf(stray)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  if (cacheBlocks > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${cacheBlocks}.`;
  return thinkingProblem(body);
}

/** The API's thinking rules: budget below max_tokens, no temperature, a tool loop's assistant turn starts with its thinking. */
function thinkingProblem(body: any): string | undefined {
  const thinking = body.thinking;
  if (!thinking || thinking.type === 'disabled') return undefined;
  if (thinking.type === 'enabled') {
    if (typeof thinking.budget_tokens !== 'number' || thinking.budget_tokens < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (thinking.budget_tokens >= body.max_tokens) return '`max_tokens` must be greater than `thinking.budget_tokens`.';
  }
  if (body.temperature !== undefined && body.temperature !== 1) return '`temperature` may only be set to 1 when thinking is enabled.';
  const last = body.messages[body.messages.length - 1];
  const loop = body.messages[body.messages.length - 2];
  const inToolLoop = last?.role === 'user' && Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result');
  if (inToolLoop && loop?.role === 'assistant' && thinking.type === 'enabled') {
    const first = loop.content[0];
    if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
      return `messages.${body.messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
    }
  }
  return undefined;
}

export class FakeAnthropicServer extends ScriptedServer {
  private replies = 0;

  constructor(private readonly config: FakeAnthropicOptions = {}) {
    super(config);
  }

  /** Pass as `baseUrl`; requests go to `${url}/v1/messages`. */
  get url(): string {
    return this.origin;
  }

  protected validate(request: RecordedRequest): FakeReply | undefined {
    if (request.method !== 'POST' || request.path !== '/v1/messages') return { type: 'error', status: 404, body: errorBody('not_found_error', 'Not Found') };
    if (this.config.apiKey !== undefined && request.headers['x-api-key'] !== this.config.apiKey) {
      return { type: 'error', status: 401, body: errorBody('authentication_error', 'invalid x-api-key') };
    }
    if (!request.headers['anthropic-version']) return { type: 'error', status: 400, body: errorBody('invalid_request_error', 'anthropic-version: header is required') };
    if (this.config.validate === false) return undefined;
    const problem = anthropicRequestProblem(request.body);
    return problem ? { type: 'error', status: 400, body: errorBody('invalid_request_error', problem) } : undefined;
  }

  protected render(reply: FakeReply, request: RecordedRequest): WireResponse {
    const headers = { 'request-id': `req_fake_${this.requests.length}` };
    switch (reply.type) {
      case 'error':
        return jsonBody(reply.status, reply.body, { ...headers, ...reply.headers });
      case 'context_too_long':
        return jsonBody(400, errorBody('invalid_request_error', `prompt is too long: ${reply.promptTokens ?? 210_000} tokens > ${reply.limit ?? 200_000} maximum`), headers);
      case 'rate_limited':
        return jsonBody(
          429,
          errorBody('rate_limit_error', 'This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.'),
          { ...headers, ...(reply.retryAfterSeconds !== undefined ? { 'retry-after': String(reply.retryAfterSeconds) } : {}), ...reply.headers },
        );
      case 'overloaded':
        return jsonBody(529, errorBody('overloaded_error', 'Overloaded'), headers);
      case 'server_error':
        return jsonBody(reply.status ?? 500, errorBody('api_error', 'Internal server error'), headers);
      case 'raw':
        return { kind: 'events', status: reply.status ?? 200, headers: { ...headers, ...reply.headers }, events: reply.chunks, then: reply.then ?? 'end' };
      case 'reply':
        return this.stream(reply, request, headers);
    }
  }

  private stream(reply: Extract<FakeReply, { type: 'reply' }>, request: RecordedRequest, headers: Record<string, string>): WireResponse {
    const n = ++this.replies;
    const eol = reply.lineEnding ?? '\n';
    const size = reply.chunkChars ?? 7;
    const events: string[] = [];
    const tags: Array<string | undefined> = [];
    let junk = 0;
    const emit = (name: string, data: unknown, tag?: string) => {
      if (reply.garbage) {
        events.push(garbageLine(junk++, eol));
        tags.push(undefined);
      }
      events.push(`event: ${name}${eol}data: ${JSON.stringify(data)}${eol}${eol}`);
      tags.push(tag);
      if (reply.comments) {
        events.push(`event: ping${eol}data: {"type": "ping"}${eol}${eol}`);
        tags.push(undefined);
      }
    };
    const absent = reply.usage === 'absent';
    const usage = reply.usage === undefined ? DEFAULT_FAKE_USAGE : reply.usage === 'absent' ? null : reply.usage;
    emit('message_start', {
      type: 'message_start',
      message: {
        id: `msg_fake_${n}`,
        type: 'message',
        role: 'assistant',
        content: [],
        model: request.body?.model ?? 'claude-fake',
        stop_reason: null,
        stop_sequence: null,
        ...(absent
          ? {}
          : {
              usage: usage
                ? { input_tokens: usage.input, cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cacheRead ?? 0, output_tokens: 1 }
                : null,
            }),
      },
    });
    emit('ping', { type: 'ping' });
    let toolNumber = 0;
    reply.parts.forEach((part, index) => {
      if ('text' in part) {
        emit('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of fragments(part.text, size)) emit('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, 'text');
      } else {
        const id = part.toolCall.id ?? `toolu_fake_${n}_${toolNumber++}`;
        emit('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: part.toolCall.name, input: {} } });
        emit('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
        for (const partial_json of fragments(part.toolCall.arguments, size)) {
          emit('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }, 'tool_args');
        }
      }
      emit('content_block_stop', { type: 'content_block_stop', index });
    });
    const stop = reply.stop ?? (reply.parts.some((p) => 'toolCall' in p) ? 'tool_use' : 'end_turn');
    emit('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, ...(absent ? {} : { usage: usage ? { output_tokens: usage.output } : null }) });
    emit('message_stop', { type: 'message_stop' });

    const faulted = withFault(events, tags, reply.fault, {
      malformed: `event: content_block_delta${eol}data: {"type":"content_block_delta","index":0,"delta":{"type":"text_de${eol}${eol}`,
      errorEvent: `event: error${eol}data: ${JSON.stringify(errorBody('overloaded_error', 'Overloaded'))}${eol}${eol}`,
    });
    return { kind: 'events', status: 200, headers, ...faulted, splitBytes: reply.splitBytes, delayMs: reply.delayMs };
  }
}
