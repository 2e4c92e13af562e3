/**
 * fetch_url end to end: the tool through the registry and the session's approvals, Node's web
 * access over real sockets to local servers, names resolved by a resolver the test gives.
 */
import assert from 'node:assert/strict';
import { ToolRegistry } from '../../../../src/core/tools/registry';
import { SessionApprovals } from '../../../../src/core/tools/sessionApprovals';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { fetchUrlTool } from '../../../../src/core/tools/web/fetchUrl';
import { nodeWebAccess, type WebLimits } from '../../../../src/node/web/nodeWebAccess';
import { readablePage } from '../../../../src/node/web/readablePage';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { outputText, runOptions, TEST_LIMITS } from '../../../support/toolRegistry';
import { webServer, type Route } from './webServer';

/** Every test name resolves to the local server, as a public name whose DNS answer points home would. */
const RESOLVER = async () => [{ address: '127.0.0.1', family: 4 }];

function session(options: { answer?: (request: ApprovalRequest) => { approved: boolean; forSession?: boolean }; limits?: Partial<WebLimits> } = {}) {
  const asked: ApprovalRequest[] = [];
  const registry = new ToolRegistry({
    sources: [() => [fetchUrlTool]],
    workspace: () => new NodeWorkspace({ folders: [], trusted: true }),
    approvals: new SessionApprovals({
      policy: () => ({ commands: 'ask', edits: 'ask' }),
      allowedTools: () => [],
      ask: async (request) => {
        asked.push(request);
        return (options.answer ?? (() => ({ approved: true })))(request);
      },
    }),
    limits: TEST_LIMITS,
    web: nodeWebAccess({ resolveHost: RESOLVER, limits: options.limits, readable: async (html, url) => readablePage(html, url) }),
  });
  let n = 0;
  const fetch = async (url: string) => {
    const result = await registry.run({ id: `c${n++}`, name: 'fetch_url', arguments: JSON.stringify({ url }) }, runOptions());
    return { ...result, text: outputText(result) };
  };
  return { fetch, asked };
}

describe('fetch_url', function () {
  this.timeout(20_000);
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  async function serve(routes: Record<string, Route>) {
    const server = await webServer(routes);
    closers.push(server.close);
    return server;
  }
  const allowLocal = (request: ApprovalRequest) => ({ approved: true, forSession: request.localAddress === true });

  it('refuses a name that resolves to a loopback address unless the user allows that host, and the server gets nothing', async () => {
    const server = await serve({ '/': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('secret admin page') });
    const denied = session({ answer: (r) => ({ approved: !r.localAddress }) });
    const refused = await denied.fetch(`http://docs.test:${server.port}/`);
    assert.equal(refused.denied, true);
    assert.deepEqual(denied.asked.map((r) => [r.domain, r.localAddress === true]), [['docs.test', false], ['local:docs.test', true]]);
    assert.match(denied.asked[1].title, /docs\.test resolves to 127\.0\.0\.1, a loopback address/);
    assert.equal(server.seen.length, 0, 'nothing reached the server');

    const allowed = session({ answer: allowLocal });
    const fetched = await allowed.fetch(`http://docs.test:${server.port}/`);
    assert.match(fetched.text, /secret admin page/);
  });

  it('refuses a redirect to a private address: the redirect is checked again and its new host asks again', async () => {
    const server = await serve({
      '/start': (_q, res) => res.writeHead(302, { Location: `http://[::ffff:127.0.0.1]:${(res.socket!.localPort)}/secret` }).end(),
      '/secret': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('internal'),
    });
    const web = session({ answer: (r) => ({ approved: !r.localAddress || r.domain === 'local:start.test', forSession: false }) });
    const result = await web.fetch(`http://start.test:${server.port}/start`);
    assert.equal(result.denied, true, result.text);
    assert.deepEqual(web.asked.map((r) => r.domain), ['start.test', 'local:start.test', '[::ffff:7f00:1]', 'local:[::ffff:7f00:1]']);
    assert.match(web.asked[2].title, /redirected from start\.test/);
    assert.match(web.asked[3].title, /a loopback address \(inside an IPv6 address\)/);
    assert.deepEqual(server.seen.map((s) => s.path), ['/start']);
  });

  it('follows at most five redirects', async () => {
    const routes: Record<string, Route> = {};
    for (let i = 0; i < 7; i++) routes[`/r${i}`] = (_q, res) => res.writeHead(301, { Location: `/r${i + 1}` }).end();
    const server = await serve(routes);
    const result = await session({ answer: allowLocal }).fetch(`http://loop.test:${server.port}/r0`);
    assert.equal(result.isError, true);
    assert.match(result.text, /redirected more than 5 times/);
    assert.equal(server.seen.length, 6);
  });

  it('sends no cookies, keys or other headers of the user: only a fixed User-Agent and Accept', async () => {
    const server = await serve({ '/': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': 'sid=1' }).end('ok') });
    const web = session({ answer: allowLocal });
    await web.fetch(`http://plain.test:${server.port}/`);
    await web.fetch(`http://plain.test:${server.port}/`);
    for (const { headers } of server.seen) assert.deepEqual(Object.keys(headers).sort(), ['accept', 'connection', 'host', 'user-agent']);
  });

  it('asks once per domain when the user allows it for the session, and again for another domain', async () => {
    const server = await serve({ '/': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok') });
    const web = session({ answer: () => ({ approved: true, forSession: true }) });
    await web.fetch(`http://one.test:${server.port}/`);
    await web.fetch(`http://one.test:${server.port}/?again`);
    await web.fetch(`http://two.test:${server.port}/`);
    assert.deepEqual(web.asked.map((r) => r.domain), ['one.test', 'local:one.test', 'two.test', 'local:two.test']);
    assert.equal(web.asked[0].allowForSession, 'fetches from `one.test`');
  });

  it('stops at the size bound, whether the server declares the length or not', async () => {
    const big = 'x'.repeat(5000);
    const server = await serve({
      '/declared': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(big.length) }).end(big),
      '/streamed': (_q, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write(big.slice(0, 2500));
        res.end(big.slice(2500));
      },
    });
    const web = session({ answer: allowLocal, limits: { maxBytes: 1000 } });
    for (const path of ['/declared', '/streamed']) {
      const result = await web.fetch(`http://big.test:${server.port}${path}`);
      assert.equal(result.isError, true);
      assert.match(result.text, /larger than 0\.0 MB|larger than/);
      assert.doesNotMatch(result.text, /xxxx/);
    }
  });

  it('gives up on a server that never answers, at the time bound', async () => {
    const server = await serve({ '/slow': () => undefined });
    const result = await session({ answer: allowLocal, limits: { totalTimeoutMs: 150 } }).fetch(`http://slow.test:${server.port}/slow`);
    assert.equal(result.isError, true);
    assert.match(result.text, /did not arrive whole within 150 ms/);
  });

  it('returns text types as they are and refuses binary ones', async () => {
    const server = await serve({
      '/data.json': (_q, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"tea":"green"}'),
      '/logo.png': (_q, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0])),
      '/missing': (_q, res) => res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such page'),
    });
    const web = session({ answer: allowLocal });
    const json = await web.fetch(`http://types.test:${server.port}/data.json`);
    assert.equal(json.isError, false);
    assert.match(json.text, /HTTP 200 · application\/json/);
    assert.match(json.text, /\{"tea":"green"\}/);
    const png = await web.fetch(`http://types.test:${server.port}/logo.png`);
    assert.equal(png.isError, true);
    assert.match(png.text, /Not text \(image\/png\)/);
    const missing = await web.fetch(`http://types.test:${server.port}/missing`);
    assert.equal(missing.isError, true);
    assert.match(missing.text, /HTTP 404[\s\S]*no such page/);
  });

  it('reads the character set from the header, else from the page\'s meta tag', async () => {
    const server = await serve({
      '/latin1': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
      '/meta': (_q, res) =>
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"><title>Cr'), Buffer.from([0xe8]), Buffer.from('me</title></head><body><p>Cr'), Buffer.from([0xe8]), Buffer.from('me br'), Buffer.from([0xfb]), Buffer.from('l'), Buffer.from([0xe9]), Buffer.from('e</p></body></html>')])),
    });
    const web = session({ answer: allowLocal });
    assert.match((await web.fetch(`http://cs.test:${server.port}/latin1`)).text, /café/);
    const meta = await web.fetch(`http://cs.test:${server.port}/meta`);
    assert.match(meta.text, /Crème brûlée/);
  });

  it('makes an HTML page readable markdown: its title and main text, without navigation or scripts', async () => {
    const paragraph = '<p>Green tea wants water below boiling, around eighty degrees, and a short steep of two minutes. Longer steeping draws out bitterness. See <a href="/temps">the temperatures</a>.</p>';
    const page = `<!doctype html><html><head><title>Tea | Site</title><script>trackEveryone()</script><style>.x{color:red}</style></head><body><nav><a href="/">Home</a><a href="/shop">Shop</a></nav><article><h1>How to brew green tea</h1>${paragraph.repeat(4)}</article><footer>Copyright footer</footer></body></html>`;
    const server = await serve({ '/guide/': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page) });
    const result = await session({ answer: allowLocal }).fetch(`http://tea.test:${server.port}/guide/#brewing`);
    assert.equal(result.isError, false, result.text);
    assert.match(result.text, /^http:\/\/tea\.test:\d+\/guide\/ — HTTP 200/);
    assert.match(result.text, /\n# Tea \| Site\n/, 'the title');
    assert.match(result.text, /\n## How to brew green tea\n/, 'the heading');
    assert.match(result.text, /Green tea wants water below boiling/);
    assert.match(result.text, /\[the temperatures\]\(http:\/\/tea\.test:\d+\/temps\)/);
    for (const absent of [/trackEveryone/, /color:red/, /Shop/, /Copyright footer/, /#brewing/]) assert.doesNotMatch(result.text, absent);
  });

  it('refuses addresses that are not http(s) or that carry credentials, before asking', async () => {
    const web = session();
    assert.match((await web.fetch('file:///etc/passwd')).text, /only http and https/);
    assert.match((await web.fetch('https://user:pw@example.com/')).text, /never sends credentials/);
    assert.equal(web.asked.length, 0);
  });
});
