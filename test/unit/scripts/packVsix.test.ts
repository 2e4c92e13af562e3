/** The packaged README shows its pictures on the installed extension's page, which loads pictures only from https: and data: addresses. */
import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
type PackVsix = { readmeForPackage(markdown: string, readFile?: (p: string) => Buffer): string };
// The script is an ES module; esbuild would turn a plain import() into require().
const importModule = new Function('p', 'return import(p)') as (p: string) => Promise<PackVsix>;

describe('the README packed into the .vsix', () => {
  it('carries every picture of the real README inline, byte for byte, and no relative picture path is left', async () => {
    const { readmeForPackage } = await importModule(path.join(ROOT, 'scripts', 'pack-vsix.mjs'));
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const relative = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((src) => !/^https:/.test(src));
    assert.ok(relative.length >= 1, 'the README shows a picture from the repository');
    const packed = readmeForPackage(readme);
    const sources = [...packed.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(sources.every((src) => /^(https:|data:image\/(png|jpeg|gif|webp);base64,)/.test(src)), `a picture the details page would not load: ${sources.map((s) => s.slice(0, 60)).join(', ')}`);
    for (const [i, src] of relative.entries()) {
      const inlined = sources.filter((s) => s.startsWith('data:'))[i];
      assert.deepEqual(Buffer.from(inlined.slice(inlined.indexOf(',') + 1), 'base64'), readFileSync(path.join(ROOT, src)), `${src} is inlined unchanged`);
    }
    const forUsers = readme.replace(/<!-- developers[^>]*-->[\s\S]*?<!-- \/developers -->\n*/g, '');
    assert.equal(packed.replace(/\(data:[^)]+\)/g, '(X)'), forUsers.replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (w, alt, src) => (/^https:/.test(src) ? w : `![${alt}](X)`)), 'nothing else changes');
  });

  it("opens with what Tally does for its user, without the developers' two commands, which the repository's README keeps first", async () => {
    const { readmeForPackage } = await importModule(path.join(ROOT, 'scripts', 'pack-vsix.mjs'));
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const packed = readmeForPackage(readme);
    assert.ok(readme.split('\n').slice(0, 12).some((line) => line.startsWith('npm install && npm start')), 'the repository README shows the two commands first');
    assert.doesNotMatch(packed, /npm install && npm (start|test)|<!-- developers/);
    assert.match(packed, /^# Tally\n\nA coding agent for VS Code whose context window is never a black box[^#]*\n## Install\n/);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(manifest.license, 'MIT');
    assert.match(manifest.repository.url, /^https:\/\/github\.com\//, 'the page links the repository');
    assert.match(manifest.homepage, /^https:\/\//);
    assert.match(manifest.bugs.url, /^https:\/\/.*\/issues$/);
    assert.match(readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8'), /^!LICENSE$/m, 'the licence is packed, so the page can link it');
  });

  it('refuses a picture kind it cannot inline (an SVG would be refused by the page)', async () => {
    const { readmeForPackage } = await importModule(path.join(ROOT, 'scripts', 'pack-vsix.mjs'));
    assert.throws(() => readmeForPackage('![logo](media/tally.svg)'), /media\/tally\.svg: only png, jpg/);
  });
});
