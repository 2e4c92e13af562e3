import { WebFetchError, type WebAccess, type WebResponse } from '../../ports/webAccess';
import { stringArg } from '../args';
import { builtinDefinition } from '../builtin/text';
import { type Tool, type ToolContext, type ToolOutput } from '../types';
import { bodyKind, decodeBody, mediaType } from './pageText';
import { parseWebUrl } from './webUrl';

/** Redirects followed by one call, each checked and (to another host) approved again. */
export const MAX_REDIRECTS = 5;

export const FETCH_URL_TOOL_NAME = 'fetch_url';

export const fetchUrlTool: Tool = {
  definition: builtinDefinition(
    FETCH_URL_TOOL_NAME,
    'Fetch a web page or text file over http(s) and return it as text: an HTML page as readable markdown (its title and main content), other text as it is; binary files are refused. Asks the user for each domain. Sends no cookies or keys, and reaches no local or private address unless the user allows that host. A long page is stored whole: read the rest with read_result.',
    { url: { type: 'string', description: 'An http:// or https:// address.' } },
    ['url'],
  ),
  approval: 'web',
  async execute(args, ctx) {
    const web = ctx.web;
    if (!web) return { output: 'fetch_url is not available in this session.', isError: true };
    let url = parseWebUrl(stringArg(args, 'url', true));
    const from: URL[] = [];
    const approvedHosts = new Set<string>();
    const localHosts = new Set<string>();
    for (;;) {
      if (!approvedHosts.has(url.hostname)) {
        await ctx.approve(fetchRequest(url, from), `fetching from ${url.hostname}`);
        approvedHosts.add(url.hostname);
      }
      let response: WebResponse;
      try {
        response = await getAllowingLocal(web, url, localHosts, ctx);
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
  },
};

/** The card of one fetch: the domain it goes to (what "for this session" covers), and where a redirect came from. */
function fetchRequest(url: URL, from: readonly URL[]) {
  const via = from.length ? ` (redirected from ${from[from.length - 1].hostname})` : '';
  return {
    title: `Fetch ${shown(url)}${via}`,
    detail: url.href,
    domain: url.hostname,
    allowForSession: `fetches from \`${url.hostname}\``,
  };
}

/** A GET; a host that resolves to a local or private address asks once more, saying so, and is fetched only if the user allows it. */
async function getAllowingLocal(web: WebAccess, url: URL, localHosts: Set<string>, ctx: ToolContext): Promise<WebResponse> {
  try {
    return await web.get({ url: url.href, allowPrivate: localHosts.has(url.hostname), signal: ctx.signal });
  } catch (error) {
    if (!(error instanceof WebFetchError) || error.reason !== 'private-address' || localHosts.has(url.hostname)) throw error;
    const where = `${url.hostname} resolves to ${error.detail.address ?? 'a local address'}${error.detail.range ? `, ${error.detail.range}` : ''}`;
    const reason = `${where}: a fetch there could reach services on this machine or its network.`;
    await ctx.approve(
      { title: `Fetch ${shown(url)} — ${where}`, detail: url.href, reason, domain: `local:${url.hostname}`, localAddress: true, allowForSession: `fetches from \`${url.hostname}\` at a local address` },
      `fetching from ${url.hostname} at a local address`,
    );
    localHosts.add(url.hostname);
    return web.get({ url: url.href, allowPrivate: true, signal: ctx.signal });
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
    return { output: `${head.join(' · ')}\nNot text (${type ?? 'binary data'}): fetch_url returns web pages and text files only, so the body was not read.`, isError: true };
  }
  const decoded = decodeBody(response.body, response.contentType, kind);
  if (decoded.note) head.push(decoded.note);
  if (kind === 'text') return { output: `${head.join(' · ')}\n\n${decoded.text}`, isError: failed };
  const page = await web.readable(decoded.text, url.href);
  const title = page.title ? `# ${page.title.trim()}\n\n` : '';
  return { output: `${head.join(' · ')}\n\n${title}${page.markdown.trim()}`, isError: failed };
}

/** The URL as a card shows it: without a long query. */
function shown(url: URL): string {
  const text = url.href;
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}


