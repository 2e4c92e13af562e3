/**
 * A local server speaking OpenAI Chat Completions (POST /v1/chat/completions, streaming), as
 * OpenAI and OpenAI-compatible servers (Ollama, LM Studio, vLLM) do: chat.completion.chunk events
 * with delta.content and delta.tool_calls fragments (index, id, function.name, function.arguments),
 * finish_reason, `usage: null` on every chunk plus a final usage chunk with `choices: []` when the
 * request sets stream_options.include_usage, `data: [DONE]`; the real error bodies; and the real
 * API's checks on tool messages and the Bearer key.
 *
 *   const server = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start();
 *   server.enqueue({ type: 'reply', parts: [{ text: 'Hi' }] });
 *   createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server.url });   // url ends in /v1
 */
import { chatContentProblem } from './imageChecks';
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

export interface FakeOpenAIOptions extends ScriptedServerOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Apply the real API's request checks (default true). */
  validate?: boolean;
}

function errorBody(message: string, type: string, code: string | null, param: string | null = null): unknown {
  return { error: { message, type, param, code } };
}

/** The real API's checks on a request body; the first problem's message, or undefined. */
export function openaiRequestProblem(body: any): string | undefined {
  if (!body || typeof body !== 'object') return 'We could not parse the JSON body of your request.';
  if (typeof body.model !== 'string') return 'you must provide a model parameter';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "Invalid type for 'messages': expected an array with at least one element.";
  if (body.stream_options && !body.stream) return "The 'stream_options' parameter is only allowed when 'stream' is enabled.";
  const open = new Set<string>();
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i];
    if (message.role === 'tool') {
      if (!open.has(message.tool_call_id)) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      open.delete(message.tool_call_id);
      continue;
    }
    if (message.role === 'user') {
      const problem = chatContentProblem(`messages[${i}].content`, message.content);
      if (problem) return problem;
    }
    if (open.size) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) for (const call of message.tool_calls) open.add(call.id);
  }
  if (open.size) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  }
  return undefined;
}

export class FakeOpenAIServer extends ScriptedServer {
  private replies = 0;

  constructor(private readonly config: FakeOpenAIOptions = {}) {
    super(config);
  }

  /** Pass as `baseUrl`; requests go to `${url}/chat/completions`. */
  get url(): string {
    return `${this.origin}/v1`;
  }

  protected override isScripted(request: RecordedRequest): boolean {
    return request.method === 'POST' && request.path === '/v1/chat/completions';
  }

  protected validate(request: RecordedRequest): FakeReply | undefined {
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
      return { type: 'error', status: 404, body: errorBody(`Invalid URL (${request.method} ${request.path})`, 'invalid_request_error', null) };
    }
    if (this.config.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.config.apiKey}`) {
      return {
        type: 'error',
        status: 401,
        body: errorBody('Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key'),
      };
    }
    if (this.config.validate === false) return undefined;
    const problem = openaiRequestProblem(request.body);
    return problem ? { type: 'error', status: 400, body: errorBody(problem, 'invalid_request_error', null, 'messages') } : undefined;
  }

  protected render(reply: FakeReply, request: RecordedRequest): WireResponse {
    switch (reply.type) {
      case 'error':
        return jsonBody(reply.status, reply.body, reply.headers);
      case 'context_too_long': {
        const limit = reply.limit ?? 128_000;
        const tokens = reply.promptTokens ?? 130_000;
        return jsonBody(
          400,
          errorBody(`This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, 'invalid_request_error', 'context_length_exceeded', 'messages'),
        );
      }
      case 'rate_limited':
        return jsonBody(
          429,
          errorBody('Rate limit reached for gpt-4o in organization org-fake on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200. Please try again in 2.4s.', 'tokens', 'rate_limit_exceeded'),
          {
            'x-ratelimit-limit-tokens': '30000',
            'x-ratelimit-remaining-tokens': '0',
            'x-ratelimit-reset-tokens': '2.4s',
            ...(reply.retryAfterSeconds !== undefined ? { 'retry-after': String(reply.retryAfterSeconds) } : {}),
            ...reply.headers,
          },
        );
      case 'overloaded':
        return jsonBody(503, errorBody('The server is overloaded or not ready yet.', 'server_error', null));
      case 'server_error':
        return jsonBody(reply.status ?? 500, errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null));
      case 'raw':
        return { kind: 'events', status: reply.status ?? 200, headers: reply.headers ?? {}, events: reply.chunks, then: reply.then ?? 'end' };
      case 'reply':
        return this.stream(reply, request);
    }
  }

  private stream(reply: Extract<FakeReply, { type: 'reply' }>, request: RecordedRequest): WireResponse {
    const n = ++this.replies;
    const eol = reply.lineEnding ?? '\n';
    const size = reply.chunkChars ?? 7;
    const includeUsage = request.body?.stream_options?.include_usage === true;
    const usage = reply.usage === undefined ? DEFAULT_FAKE_USAGE : reply.usage === 'absent' ? null : reply.usage;
    const usageField = includeUsage && reply.usage !== 'absent' ? { usage: null } : {};
    const events: string[] = [];
    const tags: Array<string | undefined> = [];
    let junk = 0;
    const base = { id: `chatcmpl-fake-${n}`, object: 'chat.completion.chunk', created: 1_700_000_000 + n, model: request.body?.model ?? 'gpt-fake', system_fingerprint: 'fp_fake' };
    const push = (data: unknown, tag?: string) => {
      if (reply.garbage) {
        events.push(garbageLine(junk++, eol));
        tags.push(undefined);
      }
      events.push(`data: ${JSON.stringify(data)}${eol}${eol}`);
      tags.push(tag);
      if (reply.comments) {
        events.push(`: keep-alive${eol}${eol}`);
        tags.push(undefined);
      }
    };
    const chunk = (delta: unknown, finish: string | null = null, tag?: string) =>
      push({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usageField }, tag);

    chunk({ role: 'assistant', content: '', refusal: null });
    let toolIndex = 0;
    for (const part of reply.parts) {
      if ('text' in part) {
        for (const content of fragments(part.text, size)) chunk({ content }, null, 'text');
      } else {
        const index = toolIndex++;
        const id = part.toolCall.id ?? `call_fake_${n}_${index}`;
        chunk({ tool_calls: [{ index, id, type: 'function', function: { name: part.toolCall.name, arguments: '' } }] });
        for (const args of fragments(part.toolCall.arguments, size)) chunk({ tool_calls: [{ index, function: { arguments: args } }] }, null, 'tool_args');
      }
    }
    const stop = reply.stop ?? (toolIndex ? 'tool_use' : 'end_turn');
    chunk({}, stop === 'tool_use' ? 'tool_calls' : stop === 'max_tokens' ? 'length' : 'stop');
    if (includeUsage && usage) {
      const cached = usage.cacheRead ?? 0;
      const prompt = usage.input + cached + (usage.cacheWrite ?? 0);
      push({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: usage.output,
          total_tokens: prompt + usage.output,
          prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      });
    }
    events.push(`data: [DONE]${eol}${eol}`);
    tags.push(undefined);

    const faulted = withFault(events, tags, reply.fault, {
      malformed: `data: {"id":"chatcmpl-fake-${n}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"unterminated${eol}${eol}`,
      errorEvent: `data: ${JSON.stringify(errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null))}${eol}${eol}`,
    });
    return { kind: 'events', status: 200, headers: {}, ...faulted, splitBytes: reply.splitBytes, delayMs: reply.delayMs };
  }
}
