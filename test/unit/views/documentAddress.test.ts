/** Each read-only document has its own address, and its tab name shows the title honestly. */
import { strict as assert } from 'assert';
import { toolCallLabel, withRequest } from '../../../src/host/inspector/documentTitles';
import { documentName, documentPath, ViewTexts } from '../../../src/views/documentAddress';

const resultTitle = (command: string) => `${withRequest(toolCallLabel('run_command', JSON.stringify({ command })), 4)} (full result)`;

describe('read-only document addresses and names', () => {
  it('two results whose commands share their first 60 characters get two addresses, each with its own text', () => {
    const prefix = `find . -name '*.ts' -newer package.json -not -path './node_modules/*'`;
    const [one, two] = [resultTitle(`${prefix} -print`), resultTitle(`${prefix} -delete`)];
    assert.equal(one, two, 'the titles alone cannot tell them apart');
    const texts = new ViewTexts();
    const first = texts.put(['result', 'ref_one'], one, 'txt', 'output of -print');
    const second = texts.put(['result', 'ref_two'], two, 'txt', 'output of -delete');
    assert.notEqual(first.path, second.path);
    assert.equal(second.changed, false, 'opening the second does not replace the first');
    assert.equal(texts.text(first.path), 'output of -print');
    assert.equal(texts.text(second.path), 'output of -delete');
    assert.equal(texts.put(['result', 'ref_one'], one, 'txt', 'output of -print').changed, false, 'opening it again keeps its address');
  });

  it('the tab name ends the path; ids are one path segment each, whatever they hold', () => {
    const path = documentPath(['item', 'session/1', 'next', 'msg#2'], 'user · next request', 'txt');
    assert.equal(path, '/item/session%2F1/next/msg%232/user · next request.txt');
    assert.equal(path.split('/').pop(), 'user · next request.txt');
  });

  it('shows bidi, C1 and zero-width characters in titles as ⟨U+…⟩ markers', () => {
    assert.equal(documentName('run_command echo "\u202Etxt.exe"', 'txt'), 'run_command echo "⟨U+202E⟩txt.exe".txt');
    assert.equal(documentName('a\u2066b\u2069c\u200Ed\u200Fe\u061Cf', 'txt'), 'a⟨U+2066⟩b⟨U+2069⟩c⟨U+200E⟩d⟨U+200F⟩e⟨U+061C⟩f.txt');
    assert.equal(documentName('x\u0085y\u009Bz', 'txt'), 'x⟨U+0085⟩y⟨U+009B⟩z.txt');
    assert.equal(documentName('zero\u200Bwidth\u200C\u200D\u2060\uFEFF', 'md'), 'zero⟨U+200B⟩width⟨U+200C⟩⟨U+200D⟩⟨U+2060⟩⟨U+FEFF⟩.md');
    assert.equal(toolCallLabel('read_file', JSON.stringify({ path: 'src/\u202Ests.nimda\u202C/a.ts' })), 'read_file src/⟨U+202E⟩sts.nimda⟨U+202C⟩/a.ts', 'the inspector shows the same form');
  });

  it('never swaps / or \\ for a look-alike: they are percent-encoded, and so is % itself', () => {
    const name = documentName('read_file src/a.ts 50%2F off C:\\x', 'txt');
    assert.equal(name, 'read_file src%2Fa.ts 50%252F off C:%5Cx.txt');
    assert.ok(!/[\u2215\u2044\u29F8\uFF0F\u2216\uFE68\uFF3C]/.test(name), 'no look-alike slash');
    assert.ok(!name.includes('/'));
    assert.equal(decodeURIComponent(name), 'read_file src/a.ts 50%2F off C:\\x.txt', 'the encoding is reversible');
  });

  it('keeps a long title to 100 characters without cutting a marker in half, and names an empty one', () => {
    const name = documentName(`${'a'.repeat(95)}\u202Ebcdef`, 'txt');
    assert.equal(name, `${'a'.repeat(95)}….txt`);
    assert.equal(documentName(' \n\t ', 'txt'), 'Tally.txt');
  });
});
