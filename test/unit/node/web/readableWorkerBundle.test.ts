import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { brotliCompressSync } from 'zlib';
import { join } from 'path';
import { pathToFileURL } from 'url';
import { readableInWorker } from '../../../../src/node/web/readableInWorker';

const ROOT = join(__dirname, '..', '..', '..', '..');
// A real dynamic import (the test loader would turn `import()` into a require, which cannot load an .mjs).
const importModule = new Function('url', 'return import(url)') as (url: string) => Promise<Record<string, unknown>>;

describe('the readable-page worker as the package bundles it (parsers and serializers it never uses left out, brotli-compressed)', function () {
  this.timeout(120_000);
  let dir: string;
  let read: (html: string, url: string) => Promise<{ title?: string; markdown?: string; text?: string }>;
  before(async () => {
    mkdirSync(join(ROOT, 'out'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'out', 'readable-worker-'));
    const { build } = await importModule('esbuild') as { build: (options: object) => Promise<unknown> };
    const targets = await importModule(pathToFileURL(join(ROOT, 'scripts', 'buildTargets.mjs')).href) as { buildTargets: Array<{ outfile: string }>; common: (production: boolean) => object };
    const target = targets.buildTargets.find((t) => t.outfile === 'dist/readableWorker.js')!;
    const outfile = join(dir, 'readableWorker.js');
    await build({ ...targets.common(true), ...target, outfile, absWorkingDir: ROOT, logLevel: 'error' });
    // Packaged as the production build leaves it: brotli-compressed, no plain copy.
    writeFileSync(`${outfile}.br`, brotliCompressSync(readFileSync(outfile)));
    rmSync(outfile);
    read = readableInWorker(outfile) as typeof read;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a page with named and numeric character references readable', async () => {
    const paragraph = '<p>Fish &amp; chips, cr&egrave;me br&ucirc;l&eacute;e&nbsp;and caf&#233; &#x2014; served &lt;hot&gt;. See <a href="/menu?a=1&amp;b=2">the menu</a>.</p>';
    const page = `<!doctype html><html><head><title>Menu &amp; prices</title></head><body><nav><a href="/">Home</a></nav><article><h1>Today&rsquo;s dishes</h1>${paragraph.repeat(5)}</article></body></html>`;
    const result = JSON.stringify(await read(page, 'http://food.test/today'));
    for (const expected of ['Menu & prices', 'Today’s dishes', 'Fish & chips, crème brûlée', 'café — served <hot', 'http://food.test/menu?a=1&b=2']) assert.ok(result.includes(JSON.stringify(expected).slice(1, -1)), `${expected} in ${result.slice(0, 400)}`);
  });
});
