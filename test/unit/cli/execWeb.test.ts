/** `tally exec --allow web`: fetch_url runs unasked with it, never without it, and never at a local address. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { EXEC_EXIT, runExec } from '../../../src/cli/exec';
import { parseExecArgs } from '../../../src/cli/execArgs';
import type { WebAccess } from '../../../src/core/ports/webAccess';
import { nodeWebAccess } from '../../../src/node/web/nodeWebAccess';
import { readablePage } from '../../../src/node/web/readablePage';
import { FakeOpenAIServer } from '../../fakes/openaiServer';
import { webServer } from '../node/web/webServer';

const KEY = 'sk-exec-test';

describe('tally exec --allow web', function () {
  this.timeout(60_000);
  let work: string;
  let storeFolder: string;
  const closers: Array<() => Promise<void>> = [];
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'tally-exec-web-'));
    storeFolder = mkdtempSync(join(tmpdir(), 'tally-exec-web-store-'));
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    rmSync(work, { recursive: true, force: true });
    rmSync(storeFolder, { recursive: true, force: true });
  });

  async function run(allow: string[], web: WebAccess, url: string) {
    const model = await new FakeOpenAIServer({ apiKey: KEY }).start();
    closers.push(() => model.close());
    model.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'fetch_url', arguments: JSON.stringify({ url }) } }] }, { type: 'reply', parts: [{ text: 'read it' }] });
    let stdout = '';
    const args = parseExecArgs(['read the page', '--provider', 'openai-compatible', '--model', 'local', '--base-url', model.url, '--json', '--store', storeFolder, '--cd', work, ...allow], work);
    const code = await runExec(args, { env: { TALLY_API_KEY: KEY }, stdout: (t) => (stdout += t), stderr: () => undefined, web });
    const lines = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return { code, result: lines.find((l) => l.type === 'tool_result'), offered: (model.requests[0].body as any).tools.map((t: any) => t.function.name) };
  }

  it('fetches only with --allow web, and never from a local address', async () => {
    const site = await webServer({ '/notes.txt': (_q, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('release notes: tea 2.0') });
    closers.push(site.close);
    const url = `http://docs.test:${site.port}/notes.txt`;
    const readable = async (html: string, at: string) => readablePage(html, at);
    // The name resolves to the local server; a test resolver stands for a public DNS answer by letting local addresses through.
    const publicLike: WebAccess = { ...nodeWebAccess({ readable, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] }) };
    const asPublic: WebAccess = { get: (request) => publicLike.get({ ...request, allowPrivate: true }), readable };

    const without = await run([], asPublic, url);
    assert.equal(without.code, EXEC_EXIT.done);
    assert.ok(without.offered.includes('fetch_url'));
    assert.equal(without.result.denied, true);
    assert.equal(site.seen.length, 0);

    const allowed = await run(['--allow', 'web'], asPublic, url);
    assert.match(allowed.result.output, /release notes: tea 2\.0/);
    assert.equal(site.seen.length, 1);

    const local = await run(['--allow', 'web'], nodeWebAccess({ readable, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] }), url);
    assert.equal(local.result.denied, true);
    assert.equal(site.seen.length, 1, 'the local address was not reached');
  });
});
