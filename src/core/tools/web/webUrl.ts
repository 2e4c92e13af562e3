import { ToolInputError } from '../types';

/**
 * An address fetch_url may fetch: http or https, no user name or password in it (they would be
 * sent as credentials), the fragment dropped (it never reaches the server). `base` resolves a
 * redirect's relative Location.
 */
export function parseWebUrl(input: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(input.trim(), base);
  } catch {
    throw new ToolInputError(`"${input.slice(0, 200)}" is not a URL${base ? ` (a redirect from ${base.href})` : ''}`);
  }
  const what = base ? `a redirect from ${base.href} to ${url.href}` : url.href;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolInputError(`only http and https addresses can be fetched (${what} is ${url.protocol.replace(/:$/, '')})`);
  if (url.username || url.password) throw new ToolInputError(`an address with a user name or password is not fetched: fetch_url never sends credentials (${base ? 'a redirect from ' + base.href : 'remove them'})`);
  if (!url.hostname) throw new ToolInputError(`${what} names no host`);
  url.hash = '';
  return url;
}
