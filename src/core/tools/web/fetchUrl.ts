import { stringArg } from '../args';
import { builtinDefinition } from '../builtin/text';
import { type Tool } from '../types';
import { fetchPage } from './fetchPage';
import { parseWebUrl } from './webUrl';

export { MAX_REDIRECTS } from './fetchPage';

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
    return fetchPage(web, parseWebUrl(stringArg(args, 'url', true)), {
      signal: ctx.signal,
      approveHost: (url, from) => ctx.approve(fetchRequest(url, from), `fetching from ${url.hostname}`),
      approveLocal: (url, error) => {
        const where = `${url.hostname} resolves to ${error.detail.address ?? 'a local address'}${error.detail.range ? `, ${error.detail.range}` : ''}`;
        const reason = `${where}: a fetch there could reach services on this machine or its network.`;
        return ctx.approve(
          { title: `Fetch ${shown(url)} — ${where}`, detail: url.href, reason, domain: `local:${url.hostname}`, localAddress: true, allowForSession: `fetches from \`${url.hostname}\` at a local address` },
          `fetching from ${url.hostname} at a local address`,
        );
      },
    });
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

/** The URL as a card shows it: without a long query. */
function shown(url: URL): string {
  const text = url.href;
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}


