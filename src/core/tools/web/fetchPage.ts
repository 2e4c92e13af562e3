import { WebFetchError, type WebAccess, type WebResponse } from '../../ports/webAccess';
import type { ToolOutput } from '../types';
import { bodyKind, decodeBody, mediaType } from './pageText';
import { parseWebUrl } from './webUrl';

/** Redirects followed by one fetch, each checked and (to another host) approved again. */
export const MAX_REDIRECTS = 5;

/** What a fetch asks before it goes on: fetch_url asks the user on a card; an attachment the user typed decides itself. */
export interface FetchConsent {
  /** Before the first request to a host, and to each other host a redirect leads to; throws to refuse. */
  approveHost(url: URL, from: readonly URL[]): Promise<unknown>;
  /** When a host resolves to a local or private address; throws to refuse. */
  approveLocal(url: URL, error: WebFetchError): Promise<unknown>;
  signal: AbortSignal;
}

/**
 * One page as text: follows redirects (each address checked again, at most MAX_REDIRECTS), makes
 * HTML readable markdown and returns other text as it is; binary bodies and failures are errors
 * that say why. What fetch_url returns and what a `#` URL attaches.
 */
export async function fetchPage(web: WebAccess, start: URL, consent: FetchConsent): Promise<ToolOutput> {
  let url = start;
  const from: URL[] = [];
  const approvedHosts = new Set<string>();
  const localHosts = new Set<string>();
  for (;;) {
    if (!approvedHosts.has(url.hostname)) {
      await consent.approveHost(url, from);
      approvedHosts.add(url.hostname);
    }
    let response: WebResponse;
    try {
      response = await getAllowingLocal(web, url, localHosts, consent);
    } catch (error) {
      if (error instanceof WebFetchError) return { output: `Could not fetch ${url.href}: ${error.message}`, isError: true };
      throw error;
    }
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      if (!response.location) return { output: `${url.href} answered HTTP ${response.status} (a redirect) without saying where to.`, isError: true };
      if (from.length >= MAX_REDIRECTS) return { output: `${url.href} redirected more than ${MAX_REDIRECTS} times; stopped (${[...from, url].map((u) => u.href).join(' → ')}).`, isError: true };
      from.push(url);
      url = parseWebUrl(response.location, url);
      continue;
    }
    return describe(web, url, from, response);
  }
}

/** A GET; a host that resolves to a local or private address is fetched only once consent allows it. */
async function getAllowingLocal(web: WebAccess, url: URL, localHosts: Set<string>, consent: FetchConsent): Promise<WebResponse> {
  try {
    return await web.get({ url: url.href, allowPrivate: localHosts.has(url.hostname), signal: consent.signal });
  } catch (error) {
    if (!(error instanceof WebFetchError) || error.reason !== 'private-address' || localHosts.has(url.hostname)) throw error;
    await consent.approveLocal(url, error);
    localHosts.add(url.hostname);
    return web.get({ url: url.href, allowPrivate: true, signal: consent.signal });
  }
}

async function describe(web: WebAccess, url: URL, from: readonly URL[], response: WebResponse): Promise<ToolOutput> {
  const type = mediaType(response.contentType);
  const kind = bodyKind(type, response.body);
  const size = `${response.body.length.toLocaleString('en-US')} bytes`;
  const failed = response.status >= 400;
  const head = [`${url.href} — HTTP ${response.status}`, response.contentType ?? 'no Content-Type', size];
  if (from.length) head.push(`redirected from ${from.map((u) => u.href).join(' → ')}`);
  if (kind === 'binary') {
    return { output: `${head.join(' · ')}\nNot text (${type ?? 'binary data'}): only web pages and text files are read, so the body was not read.`, isError: true };
  }
  const decoded = decodeBody(response.body, response.contentType, kind);
  if (decoded.note) head.push(decoded.note);
  if (kind === 'text') return { output: `${head.join(' · ')}\n\n${decoded.text}`, isError: failed };
  const page = await web.readable(decoded.text, url.href);
  const title = page.title ? `# ${page.title.trim()}\n\n` : '';
  return { output: `${head.join(' · ')}\n\n${title}${page.markdown.trim()}`, isError: failed };
}
