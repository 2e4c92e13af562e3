import type { AttachmentInfo } from '../core/model/message';
import type { WebAccess } from '../core/ports/webAccess';
import { fetchPage } from '../core/tools/web/fetchPage';
import { parseWebUrl } from '../core/tools/web/webUrl';

/** How long an attached page may take, redirects included, before its chip says it gave up. */
const ATTACH_FETCH_MS = 30_000;

/**
 * A web page the user typed after `#`: fetched as fetch_url fetches it (no cookies or keys, each
 * address checked at connect time and after every redirect, size and time bounds, HTML made
 * readable), without a card — the user chose the address. A host at a local or private address is
 * not attached: asking the agent to fetch it shows the card that says so.
 */
export async function readWebPage(web: WebAccess, address: string): Promise<{ info: AttachmentInfo; content: string }> {
  const url = parseWebUrl(address);
  const page = await fetchPage(web, url, {
    signal: AbortSignal.timeout(ATTACH_FETCH_MS),
    approveHost: async () => undefined,
    approveLocal: async (at, error) => {
      throw new Error(`${at.hostname} resolves to ${error.detail.address ?? 'a local address'}${error.detail.range ? ` (${error.detail.range})` : ''}: a page there is not attached. Ask Tally to fetch it instead; it asks you first.`);
    },
  });
  const text = typeof page.output === 'string' ? page.output : new TextDecoder().decode(page.output);
  if (page.isError) {
    // The line that says why: a failed fetch, a body that is not text, or the status line of an HTTP error.
    const lines = text.split('\n');
    throw new Error(lines.find((line) => line.startsWith('Not text')) ?? lines[0]);
  }
  const title = /^# (.+)$/m.exec(text)?.[1]?.trim();
  return { info: { kind: 'url', label: title ? `${title} (${url.hostname})` : `${url.hostname}${url.pathname === '/' ? '' : url.pathname}`, uri: url.href }, content: text };
}
