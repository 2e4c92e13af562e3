import { strict as assert } from 'assert';
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative, resolve } from 'path';
import { countOf, nounFor } from '../../../src/protocol/wording';

const ROOT = resolve(__dirname, '..', '..', '..');
/** The surfaces a user reads: both webviews and the views' host logic. */
const FOLDERS = ['webview', join('src', 'host')];
/** A number put straight before a plural noun ("${n} tokens"), or a plural made by hand ("=== 1 ? '' : 's'"). */
const HAND_PLURAL = /\$\{[^{}]*(\([^()]*\))?[^{}]*\}\)? (tokens|lines|items|messages|requests|results|samples|calls|bytes|characters|sessions|turns)\b|=== 1 \? '' : 's'/;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

describe('counts are written as a person writes them', () => {
  it('says "1 token" and "2 tokens", with thousands separated', () => {
    assert.equal(countOf(1, 'token'), '1 token');
    assert.equal(countOf(0, 'token'), '0 tokens');
    assert.equal(countOf(2, 'line'), '2 lines');
    assert.equal(countOf(23_907, 'byte'), '23,907 bytes');
    assert.equal(countOf(1, 'more item'), '1 more item');
    assert.equal(nounFor(1, 'token'), 'token');
    assert.equal(nounFor(1_000, 'token'), 'tokens');
  });

  it('leaves no count in the chat, the inspector or their host logic to a hand-made plural', () => {
    const hits: string[] = [];
    for (const folder of FOLDERS) {
      for (const path of files(join(ROOT, folder))) {
        readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
          if (HAND_PLURAL.test(line)) hits.push(`${relative(ROOT, path)}:${i + 1}: ${line.trim().slice(0, 140)}`);
        });
      }
    }
    assert.deepEqual(hits, []);
  });
});
