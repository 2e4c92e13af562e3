import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('the workspace on disk (Node implementation of the Workspace port)', function () {
  this.timeout(30_000);
  let root: string;
  let ws: string;
  let workspace: NodeWorkspace;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-node-ws-'));
    ws = join(root, 'app');
    mkdirSync(join(ws, 'src'), { recursive: true });
    mkdirSync(join(ws, 'node_modules', 'dep'), { recursive: true });
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(ws, 'src', 'a.ts'), 'const needle = 1;\nconst other = 2;\n');
    writeFileSync(join(ws, 'node_modules', 'dep', 'index.js'), 'needle\n');
    writeFileSync(join(root, 'outside', 'secret.txt'), 'needle\n');
    symlinkSync(join(root, 'outside'), join(ws, 'link'));
    workspace = new NodeWorkspace({ folders: [ws], trusted: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads a whole file or its first bytes, with the full size', async () => {
    const path = await workspace.resolve('src/a.ts', { mustExist: true });
    assert.equal(text((await workspace.readFile(path, 1 << 20)).bytes), 'const needle = 1;\nconst other = 2;\n');
    const head = await workspace.readFile(path, 5);
    assert.deepEqual({ text: text(head.bytes), size: head.size }, { text: 'const', size: 35 });
    assert.equal(await workspace.kind(path), 'file');
    assert.equal(await workspace.kind(await workspace.resolve('src', { mustExist: true })), 'directory');
  });

  it('lists a folder sorted, reporting links without following them', async () => {
    assert.deepEqual(await workspace.list(ws), [
      { name: 'link', kind: 'symlink' },
      { name: 'node_modules', kind: 'directory' },
      { name: 'src', kind: 'directory' },
    ]);
    assert.deepEqual(await workspace.list(join(ws, 'missing')), []);
  });

  it('searches text files under a folder, skipping ignored folders and links out of the workspace', async () => {
    const hits = await workspace.search(await workspace.resolve('.', { mustExist: true }), /needle/, { maxResults: 10, untrusted: false, signal: new AbortController().signal });
    assert.deepEqual(hits, [{ path: 'src/a.ts', line: 1, text: 'const needle = 1;' }]);
  });

  it('writes a new file (creating folders) and overwrites an existing one, only inside the folders', async () => {
    const created = await workspace.resolve('new/dir/b.txt', { mustExist: false });
    await workspace.writeFile('new/dir/b.txt', created, 'hello\n');
    assert.equal(readFileSync(join(ws, 'new', 'dir', 'b.txt'), 'utf8'), 'hello\n');
    await assert.rejects(workspace.resolve('link/secret.txt', { mustExist: false }), /through a symbolic link/);
    await assert.rejects(workspace.resolve('../outside/secret.txt', { mustExist: false }), /outside the workspace folders/);
  });

  it('runs a command in a folder and reports its output and exit status', async () => {
    const ok = await workspace.exec('echo hi; echo err >&2', { cwd: ws, timeoutMs: 5_000, maxOutputBytes: 1024, signal: new AbortController().signal });
    assert.deepEqual({ output: text(ok.output), failed: ok.failed }, { output: 'hi\nerr\n\n[exit code 0]', failed: false });
    const bad = await workspace.exec('exit 3', { cwd: ws, timeoutMs: 5_000, maxOutputBytes: 1024, signal: new AbortController().signal });
    assert.deepEqual({ output: text(bad.output), failed: bad.failed }, { output: '\n[exit code 3]', failed: true });
    const slow = await workspace.exec('sleep 5', { cwd: ws, timeoutMs: 200, maxOutputBytes: 1024, signal: new AbortController().signal });
    assert.match(text(slow.output), /\[timed out after 0.2 s\]$/);
  });

  it('names the paths that can run code', async () => {
    assert.match((await workspace.protectedReason(join(ws, '.git', 'config'))) ?? '', /\.git/);
    assert.equal(await workspace.protectedReason(join(ws, 'src', 'a.ts')), undefined);
  });
});
