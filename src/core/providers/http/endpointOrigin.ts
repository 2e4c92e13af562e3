/**
 * Which server a stored API key may be sent to. A key is saved together with the origin
 * (scheme://host:port) of the endpoint it was entered for; requests use it only for that origin.
 */
export type KeyedProvider = 'anthropic' | 'openai' | 'openai-compatible';

const DEFAULT_ORIGINS: Record<KeyedProvider, string | undefined> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  'openai-compatible': undefined,
};

/** The normalized origin of a base URL (lower-case host, default port dropped), or undefined when it is not an http(s) URL. */
export function normalizeOrigin(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin;
}

/** Where requests for `provider` go with this base URL: its origin, or the provider's default when empty. */
export function endpointOrigin(provider: KeyedProvider, baseUrl: string): string | undefined {
  return baseUrl.trim() ? normalizeOrigin(baseUrl) : DEFAULT_ORIGINS[provider];
}

export interface StoredKey {
  key: string;
  /** Origin the key was entered for; undefined for an old key of a provider without a default endpoint. */
  origin?: string;
}

/** Reads what SecretStorage holds: the current `{ key, origin }` JSON, or an old bare key (bound to the provider's default origin). */
export function parseStoredKey(provider: KeyedProvider, stored: string | undefined): StoredKey | undefined {
  if (!stored) return undefined;
  if (stored.startsWith('{')) {
    try {
      const value = JSON.parse(stored) as { key?: unknown; origin?: unknown };
      if (typeof value.key === 'string' && value.key) return { key: value.key, origin: typeof value.origin === 'string' ? value.origin : undefined };
    } catch {
      // Not our JSON: an old key that happens to start with "{".
    }
  }
  return { key: stored, origin: DEFAULT_ORIGINS[provider] };
}

export function serializeStoredKey(key: StoredKey): string {
  return JSON.stringify({ key: key.key, origin: key.origin });
}

const PROVIDER_NAMES: Record<KeyedProvider, string> = { anthropic: 'Anthropic', openai: 'OpenAI', 'openai-compatible': 'OpenAI-compatible' };

/** The key to send to `baseUrl`, or why none may be sent there. */
export function keyForEndpoint(provider: KeyedProvider, baseUrl: string, stored: StoredKey | undefined): { ok: true; key: string | undefined } | { ok: false; reason: string } {
  if (!stored) return { ok: true, key: undefined };
  const target = endpointOrigin(provider, baseUrl);
  if (!target) return { ok: false, reason: `tally.baseUrl "${baseUrl}" is not an http(s) URL; no request was sent.` };
  if (stored.origin !== target) {
    const savedFor = stored.origin ? `was saved for ${stored.origin}` : 'was saved without an endpoint';
    return { ok: false, reason: `The stored ${PROVIDER_NAMES[provider]} key ${savedFor}; run "Tally: Set API Key" to use it with ${target}. No request was sent.` };
  }
  return { ok: true, key: stored.key };
}
