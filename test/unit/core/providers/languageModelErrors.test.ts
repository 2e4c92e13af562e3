import { strict as assert } from 'assert';
import { classifyLanguageModelError } from '../../../../src/core/providers/languageModelErrors';

describe("VS Code Language Model API errors", () => {
  it('takes the overflow wordings Copilot sends for a prompt too long (so the agent compacts and retries)', () => {
    for (const message of [
      'Request Failed: 400 {"error":{"message":"prompt token count of 132354 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}',
      'Message exceeds token limit.',
      'prompt is too long: 210194 tokens > 200000 maximum',
    ]) {
      assert.equal(classifyLanguageModelError({ message }).kind, 'context_too_long', message);
    }
  });

  it('does not take a message that merely mentions "context" for an overflow', () => {
    const e = classifyLanguageModelError({ message: 'Request failed: the context menu contribution could not be loaded' });
    assert.equal(e.kind, 'server');
    assert.equal(e.retryable, true);
    const denied = classifyLanguageModelError({ message: 'Access to the model was denied in this context', code: 'NoPermissions' });
    assert.equal(denied.kind, 'auth');
  });

  it('maps the API error codes: no permission, blocked, not found', () => {
    assert.equal(classifyLanguageModelError({ message: 'no', code: 'NoPermissions' }).kind, 'auth');
    const blocked = classifyLanguageModelError({ message: 'quota', code: 'Blocked' });
    assert.equal(blocked.kind, 'rate_limited');
    assert.equal(blocked.retryable, false);
    assert.equal(classifyLanguageModelError({ message: 'gone', code: 'NotFound' }).kind, 'bad_request');
  });
});
