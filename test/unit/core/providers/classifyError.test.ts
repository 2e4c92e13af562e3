import { strict as assert } from 'assert';
import { errorFromPayload, errorFromResponse, isContextTooLong, readErrorBody, serverPromptTokens } from '../../../../src/core/providers/classifyError';
import { redactSecrets } from '../../../../src/core/providers/errors';

const ctx = { provider: 'Test', secrets: ['sk-secret-value-123456'] };
const h = (values: Record<string, string> = {}) => new Headers(values);

describe('provider error classification', () => {
  it('recognizes "context too long" in the wording of each server', () => {
    const bodies: Array<[string, number, string]> = [
      ['Anthropic', 400, '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}'],
      ['Anthropic (prompt + max_tokens)', 400, '{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}'],
      ['Anthropic 413', 413, '{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}'],
      ['OpenAI', 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`],
      ['vLLM', 400, `{"object":"error","message":"This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`],
      ['llama.cpp', 500, '{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}'],
      ['LM Studio', 400, '{"error":"The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input."}'],
      ['LM Studio (older)', 400, '{"error":"Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough."}'],
      ['Ollama', 400, '{"error":{"message":"the input length exceeds the context length","type":"api_error","param":null,"code":null}}'],
    ];
    for (const [server, status, body] of bodies) {
      const error = errorFromResponse(ctx, status, h(), body);
      assert.equal(error.kind, 'context_too_long', server);
      assert.equal(error.retryable, false, server);
    }
  });

  it('does not mistake other errors for context overflow', () => {
    assert.equal(isContextTooLong({ message: 'max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620' }), false);
    assert.equal(isContextTooLong({ message: 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 30000, Requested 1200.' }), false);
    assert.equal(isContextTooLong({ message: 'invalid x-api-key', type: 'authentication_error' }), false);
  });

  it('maps statuses to kinds and retryability', () => {
    const cases: Array<[number, string, boolean]> = [
      [401, 'auth', false],
      [403, 'auth', false],
      [404, 'bad_request', false],
      [400, 'bad_request', false],
      [429, 'rate_limited', true],
      [529, 'overloaded', true],
      [503, 'overloaded', true],
      [500, 'server', true],
      [502, 'server', true],
      [408, 'server', true],
    ];
    for (const [status, kind, retryable] of cases) {
      const error = errorFromResponse(ctx, status, h(), '{"error":{"message":"x"}}');
      assert.equal(error.kind, kind, String(status));
      assert.equal(error.retryable, retryable, String(status));
      assert.equal(error.status, status);
    }
  });

  it('a 429 for an exhausted quota is not retried', () => {
    const error = errorFromResponse(ctx, 429, h(), '{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}');
    assert.equal(error.kind, 'quota');
    assert.match(error.message, /quota or billing/);
    assert.equal(error.retryable, false);
  });

  it('carries retry-after and says it in the message', () => {
    const error = errorFromResponse(ctx, 429, h({ 'retry-after': '12' }), '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}');
    assert.equal(error.retryAfterMs, 12_000);
    assert.match(error.message, /^Test: rate limited \(HTTP 429\): Number of request tokens .* \(retry after 12s\)$/);
    assert.equal(error.code, 'rate_limit_error');
  });

  it('reads in-stream error payloads by type', () => {
    assert.equal(errorFromPayload(ctx, { type: 'overloaded_error', message: 'Overloaded' }).kind, 'overloaded');
    assert.equal(errorFromPayload(ctx, { type: 'api_error', message: 'Internal server error' }).kind, 'server');
    assert.equal(errorFromPayload(ctx, { type: 'invalid_request_error', message: 'prompt is too long: 5 tokens > 4 maximum' }).kind, 'context_too_long');
  });

  it('reads the error body shapes seen in the wild, including HTML and plain text', () => {
    assert.deepEqual(readErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), { message: 'Overloaded', type: 'overloaded_error', code: undefined });
    assert.deepEqual(readErrorBody('{"error":"model not loaded"}'), { message: 'model not loaded', type: undefined, code: undefined });
    assert.equal(readErrorBody('<html><body><h1>502 Bad Gateway</h1></body></html>').message, '502 Bad Gateway');
    assert.equal(readErrorBody('upstream connect error').message, 'upstream connect error');
    assert.equal(readErrorBody('').message, undefined);
  });

  it('never puts an API key in a message, even when the server echoes it', () => {
    const error = errorFromResponse(ctx, 401, h(), '{"error":{"message":"Incorrect API key provided: sk-secret-value-123456"}}');
    assert.ok(!error.message.includes('sk-secret-value-123456'));
    assert.match(error.message, /\[redacted\]/);
    assert.equal(redactSecrets('key sk-ant-api03-abcdefghijklmnop and Bearer abcdefghijklmnopqrstuvwxyz'), 'key [redacted] and Bearer [redacted]');
  });

  it("reads the server's own count of the prompt from each provider's context-length wording", () => {
    const cases: Array<[string, number | undefined]> = [
      ["This model's maximum context length is 128000 tokens. However, your messages resulted in 208450 tokens. Please reduce the length of the messages.", 208_450],
      ["This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8500 in the messages, 500 in the completion).", 8_500],
      ['prompt is too long: 208450 tokens > 200000 maximum', 208_450],
      ['input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again', 188_240],
      ['prompt token count of 132,354 exceeds the limit of 128000', 132_354],
      ['the request (8202 tokens) exceeds the available context size (8192 tokens), try increasing it', 8_202],
      ['Message exceeds token limit.', undefined],
    ];
    for (const [message, tokens] of cases) assert.equal(serverPromptTokens(message), tokens, message);
  });
});
