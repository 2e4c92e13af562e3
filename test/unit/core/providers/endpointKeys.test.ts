import { strict as assert } from 'assert';
import { endpointOrigin, keyForEndpoint, normalizeOrigin, parseStoredKey, serializeStoredKey } from '../../../../src/core/providers/http/endpointOrigin';

describe('API keys bound to endpoint origins', () => {
  it('normalizes origins: case, default port, path and trailing slash do not matter; other schemes are refused', () => {
    assert.equal(normalizeOrigin('HTTPS://API.Anthropic.com:443/v1/'), 'https://api.anthropic.com');
    assert.equal(normalizeOrigin(' http://127.0.0.1:11434/v1 '), 'http://127.0.0.1:11434');
    assert.equal(normalizeOrigin('http://127.0.0.1:80/x'), 'http://127.0.0.1');
    assert.equal(normalizeOrigin('file:///etc/passwd'), undefined);
    assert.equal(normalizeOrigin('not a url'), undefined);
    assert.equal(endpointOrigin('anthropic', ''), 'https://api.anthropic.com');
    assert.equal(endpointOrigin('openai', ''), 'https://api.openai.com');
    assert.equal(endpointOrigin('openai-compatible', ''), undefined);
  });

  it('a key stored before origins existed is bound to the provider default, and only sent there', () => {
    const legacy = parseStoredKey('anthropic', 'sk-ant-old');
    assert.deepEqual(legacy, { key: 'sk-ant-old', origin: 'https://api.anthropic.com' });
    assert.deepEqual(keyForEndpoint('anthropic', '', legacy), { ok: true, key: 'sk-ant-old' });
    assert.deepEqual(keyForEndpoint('anthropic', 'https://api.anthropic.com/', legacy), { ok: true, key: 'sk-ant-old' });
    const refused = keyForEndpoint('anthropic', 'http://127.0.0.1:9999', legacy);
    assert.equal(refused.ok, false);
    assert.match((refused as { reason: string }).reason, /The stored Anthropic key was saved for https:\/\/api\.anthropic\.com; run "Tally: Set API Key" to use it with http:\/\/127\.0\.0\.1:9999/);
    assert.equal(parseStoredKey('openai-compatible', 'old')?.origin, undefined, 'no default endpoint: an old key is bound to none');
    assert.equal(keyForEndpoint('openai-compatible', 'http://127.0.0.1:11434/v1', parseStoredKey('openai-compatible', 'old')).ok, false);
  });

  it('a key saved for an origin round-trips and goes nowhere else', () => {
    const stored = parseStoredKey('openai-compatible', serializeStoredKey({ key: 'k1', origin: 'http://127.0.0.1:11434' }));
    assert.deepEqual(keyForEndpoint('openai-compatible', 'http://127.0.0.1:11434/v1', stored), { ok: true, key: 'k1' });
    assert.equal(keyForEndpoint('openai-compatible', 'http://127.0.0.1:11435/v1', stored).ok, false);
    assert.equal(keyForEndpoint('openai-compatible', 'https://127.0.0.1:11434/v1', stored).ok, false);
    assert.equal(keyForEndpoint('openai-compatible', 'javascript:alert(1)', stored).ok, false);
    assert.deepEqual(keyForEndpoint('openai-compatible', 'http://127.0.0.1:11434', undefined), { ok: true, key: undefined }, 'no key: nothing to protect');
  });
});
