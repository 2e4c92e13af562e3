import { endpointOrigin, type KeyedProvider } from '../core/providers/http/endpointOrigin';

/** The provider keys `tally exec` reads from the environment, each sent only to its provider's own server. */
const PROVIDER_KEYS: Partial<Record<KeyedProvider, string>> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/**
 * The key `tally exec` sends, and where it came from: TALLY_API_KEY to any server; ANTHROPIC_API_KEY
 * or OPENAI_API_KEY only when requests go to that provider's own origin (no --base-url, or one with
 * the same origin), so a --base-url elsewhere never receives them. `missing` says what to set when
 * the provider needs a key and none may be sent.
 */
export function execApiKey(provider: KeyedProvider, baseUrl: string | undefined, env: NodeJS.ProcessEnv): { key?: string; missing?: string } {
  if (env.TALLY_API_KEY) return { key: env.TALLY_API_KEY };
  const variable = PROVIDER_KEYS[provider];
  if (!variable) return {};
  const own = endpointOrigin(provider, '');
  const target = endpointOrigin(provider, baseUrl ?? '');
  if (target !== own) return { missing: `TALLY_API_KEY (${variable} is sent only to ${own}, not to ${target ?? baseUrl})` };
  return env[variable] ? { key: env[variable] } : { missing: `${variable} or TALLY_API_KEY` };
}
