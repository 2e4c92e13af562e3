import { strict as assert } from 'assert';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type { ApprovalAnswer } from '../../../../src/core/tools/approval';
import { builtinTools } from '../../../../src/core/tools/builtin';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { outputText, runOptions, testRegistry } from '../../../support/toolRegistry';

const SECRET = 'aws_secret_access_key = OUTSIDE-SECRET-5678\n';

// A hard link inside the workspace to a file outside it: the same file under a second name, which
// no path check can tell from an ordinary file.
describe('hard links to files outside the workspace', function () {
  this.timeout(30_000);
  let root: string;
  let ws: string;
  let secret: string;
  let asked: ApprovalRequest[];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-hardlinks-'));
    ws = join(root, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(join(root, 'home'));
    secret = join(root, 'home', 'credentials');
    writeFileSync(secret, SECRET);
    linkSync(secret, join(ws, 'src', 'notes.txt'));
    writeFileSync(join(ws, 'src', 'plain.txt'), 'plain\n');
    asked = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = (name: string, args: Record<string, unknown>, answer: ApprovalAnswer = { approved: false }) =>
    testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'always' }, ask: async (r) => (asked.push(r), answer) })
      .run({ id: 'c1', name, arguments: JSON.stringify(args) }, runOptions());

  it('read_file asks first, saying why, and shows nothing when the user says no', async () => {
    const result = await run('read_file', { path: 'src/notes.txt' });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].kind, 'read');
    assert.match(asked[0].title, /^Read src\/notes\.txt — Asking because src\/notes\.txt has 2 hard links, so it may be a file from outside the workspace\.$/);
    assert.equal(result.denied, true);
    assert.doesNotMatch(outputText(result), /OUTSIDE-SECRET/);
    assert.match(outputText(result), /The user denied reading src\/notes\.txt\./);
  });

  it('read_file shows the file once the user allows it; a file with one name never asks', async () => {
    const allowed = await run('read_file', { path: 'src/notes.txt' }, { approved: true });
    assert.match(outputText(allowed), /OUTSIDE-SECRET/);
    const plain = await run('read_file', { path: 'src/plain.txt' });
    assert.match(outputText(plain), /plain/);
    assert.equal(asked.length, 1, 'only the hard-linked file asked');
  });

  it('write_file and edit_file refuse it without asking, even with edits: always, and the outside file keeps its text', async () => {
    const write = await run('write_file', { path: 'src/notes.txt', content: 'overwritten\n' });
    assert.equal(outputText(write), 'write_file: src/notes.txt has 2 hard links, so writing it could change a file outside the workspace; nothing was written');
    const edit = await run('edit_file', { path: 'src/notes.txt', old_text: 'OUTSIDE', new_text: 'CHANGED' });
    assert.match(outputText(edit), /^edit_file: src\/notes\.txt has 2 hard links, so writing it could change a file outside the workspace/);
    assert.equal(asked.length, 0);
    assert.equal(readFileSync(secret, 'utf8'), SECRET);
  });

  it('search_text skips it', async () => {
    const result = await run('search_text', { query: 'OUTSIDE-SECRET' });
    assert.equal(outputText(result), 'No matches for "OUTSIDE-SECRET".');
    const direct = await run('search_text', { query: 'OUTSIDE-SECRET', path: 'src/notes.txt' });
    assert.doesNotMatch(outputText(direct), /OUTSIDE-SECRET-5678/);
  });

  it('a file replaced by a hard link after it was checked is refused when written, untouched', async () => {
    const workspace = new NodeWorkspace({ folders: [ws], trusted: true });
    const resolved = await workspace.resolve('src/plain.txt', { mustExist: true });
    unlinkSync(join(ws, 'src', 'plain.txt'));
    linkSync(secret, join(ws, 'src', 'plain.txt'));
    await assert.rejects(workspace.writeFile('src/plain.txt', resolved, 'overwritten\n', 'plain\n'), /src\/plain\.txt has 3 hard links, so writing it could change a file outside the workspace; nothing was written/);
    assert.equal(readFileSync(secret, 'utf8'), SECRET);
  });
});
