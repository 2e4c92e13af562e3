import { strict as assert } from 'assert';
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..', '..');
const FOLDERS = ['src', 'webview', 'test', 'bench', 'scripts', 'docs', 'README.md', 'BENCHMARKS.md', 'CHANGELOG.md'];
const TEXT = /\.(ts|tsx|js|mjs|cjs|sh|md|css|html)$/;

/** Citations of planning documents that are not in the repository (feature numbers, seeds, the mission file). */
const CITATION = /\bF\d{1,2}(\.\d)?\b|\bseed 0\d\d\b|MISSION\.md|\b[Ii]ssue \d+\b/;
/** Lines where the text is really the F1 key. */
const KEY = /\bF1\b['"]?\)|press F[15]\b|press\('F1'\)/;


function* files(dir: string): Generator<string> {
  if (statSync(dir).isFile()) {
    yield dir;
    return;
  }
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

describe('code and docs say what things do', () => {
  it('cite no feature numbers, seeds or planning documents that are not in the repository', () => {
    const self = relative(ROOT, __filename);
    const hits: string[] = [];
    for (const folder of FOLDERS) {
      for (const path of files(join(ROOT, folder))) {
        const rel = relative(ROOT, path);
        if (rel === self) continue;
        readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
          if (CITATION.test(line) && !KEY.test(line)) hits.push(`${rel}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
      }
    }
    assert.deepEqual(hits, []);
  });
});
