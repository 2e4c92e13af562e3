import { strict as assert } from 'assert';
import { readWebPage } from '../../../src/attachments/webPageAttachment';
import type { WebAccess } from '../../../src/core/ports/webAccess';
import { readAttachTarget } from '../../../src/protocol/validateAttachments';
import { nodeWebAccess } from '../../../src/node/web/nodeWebAccess';
import { readablePage } from '../../../src/node/web/readablePage';
import { webServer } from '../node/web/webServer';

/** Every name resolves to the local test server. */
const RESOLVER = async () => [{ address: '127.0.0.1', family: 4 }];
const web = nodeWebAccess({ resolveHost: RESOLVER, readable: async (html, url) => readablePage(html, url) });
/** The same web as if the names were public hosts: what a page on the internet goes through. */
const publicWeb: WebAccess = { ...web, get: (request) => web.get({ ...request, allowPrivate: true }) };

describe('a web page attached with # (fetched as fetch_url fetches, without a card)', () => {
  const paragraph = '<p>Green tea wants water below boiling, around eighty degrees, and a short steep of two minutes. Longer steeping draws out bitterness.</p>';
  let server: Awaited<ReturnType<typeof webServer>>;
  before(async () => {
    server = await webServer({
      '/guide': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<html><head><title>Tea guide</title></head><body><nav>Home</nav><article><h1>Brewing</h1>${paragraph.repeat(4)}</article></body></html>`),
      '/old': (_q, res) => res.writeHead(301, { Location: '/guide' }).end(),
      '/logo.png': (_q, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0])),
    });
  });
  after(() => server.close());

  it('attaches the page as readable markdown named by its title, following a redirect', async () => {
    const { info, content } = await readWebPage(publicWeb, `http://tea.test:${server.port}/old`);
    assert.equal(info.kind, 'url');
    assert.equal(info.label, 'Tea guide (tea.test)');
    assert.equal(info.uri, `http://tea.test:${server.port}/old`, 'the address the user typed');
    assert.match(content, /HTTP 200 · text\/html; charset=utf-8 · [\d,]+ bytes · redirected from http:\/\/tea\.test:\d+\/old/);
    assert.match(content, /# Tea guide[\s\S]*Green tea wants water below boiling/);
    assert.doesNotMatch(content, /Home/);
  });

  it('refuses a host at a local address, a page that is not text and an address that is not http(s), saying why', async () => {
    await assert.rejects(readWebPage(web, `http://intranet.test:${server.port}/guide`), /intranet\.test resolves to 127\.0\.0\.1 \(a loopback address\): a page there is not attached\. Ask Tally to fetch it instead/);
    await assert.rejects(readWebPage(publicWeb, `http://tea.test:${server.port}/logo.png`), /^Error: Not text \(image\/png\)/);
    await assert.rejects(readWebPage(publicWeb, `http://tea.test:${server.port}/missing`), /HTTP 404/);
    await assert.rejects(readWebPage(publicWeb, 'file:///etc/passwd'), /http/);
  });

  it('the webview may ask for an http(s) address only, with nothing else in the target', () => {
    assert.deepEqual(readAttachTarget({ target: { kind: 'url', url: 'https://example.com/docs?q=1' } }, 'target'), { ok: true, value: { kind: 'url', url: 'https://example.com/docs?q=1' } });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'https://exa mple.com', '', 42]) assert.equal(readAttachTarget({ target: { kind: 'url', url } }, 'target').ok, false, String(url));
    assert.equal(readAttachTarget({ target: { kind: 'url', url: 'https://example.com', path: 'x' } }, 'target').ok, false);
  });
});
