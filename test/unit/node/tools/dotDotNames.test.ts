import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { builtinTools } from '../../../../src/core/tools/builtin';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { loadInstructions } from '../../../../src/node/prompt/agentsMd';
import { NodeWorkspace } from '../../../../src/node/tools/nodeWorkspace';
import { outputText, runOptions, testRegistry } from '../../../support/toolRegistry';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

// `..` leads out of a folder only as a whole path segment: `..env` or `..shared/` are names inside it.
describe('names that start with two dots stay inside the workspace', function () {
  this.timeout(30_000);
  let root: string;
  let ws: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-dotdot-'));
    ws = join(root, 'app');
    mkdirSync(join(ws, '..shared'), { recursive: true });
    writeFileSync(join(ws, '..env'), 'KEY=1\n');
    writeFileSync(join(root, 'outside.txt'), 'outside\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads and writes a file named ..env and one in a folder named ..shared; ../ still leads out', async () => {
    const workspace = new NodeWorkspace({ folders: [ws], trusted: true });
    const env = await workspace.resolve('..env', { mustExist: true });
    assert.equal(env.relative, '..env');
    assert.equal(text((await workspace.readFile(env, 1024)).bytes), 'KEY=1\n');
    await workspace.writeFile('..env', env, 'KEY=2\n', 'KEY=1\n');
    assert.equal(readFileSync(join(ws, '..env'), 'utf8'), 'KEY=2\n');
    const shared = await workspace.resolve('..shared/notes.txt', { mustExist: false });
    await workspace.writeFile('..shared/notes.txt', shared, 'hi\n', undefined);
    assert.equal(readFileSync(join(ws, '..shared', 'notes.txt'), 'utf8'), 'hi\n');
    await assert.rejects(workspace.resolve('../outside.txt', { mustExist: true }), /outside the workspace folders/);
    await assert.rejects(workspace.resolve('..', { mustExist: true }), /outside the workspace folders/);
  });

  it('a write to ..env follows the user setting like any file, with the model told it was written', async () => {
    const runner = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'ask', edits: 'always' } });
    const result = await runner.run({ id: 'c1', name: 'write_file', arguments: JSON.stringify({ path: '..env', content: 'KEY=3\n' }) }, runOptions());
    assert.equal(result.isError, undefined, outputText(result));
    assert.equal(readFileSync(join(ws, '..env'), 'utf8'), 'KEY=3\n');
  });

  it('a file that runs code inside a folder named ..tools still asks', async () => {
    const asked: ApprovalRequest[] = [];
    const runner = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'always' }, ask: async (r) => (asked.push(r), { approved: false }) });
    mkdirSync(join(ws, '..tools', '.vscode'), { recursive: true });
    const workspace = new NodeWorkspace({ folders: [ws], trusted: true });
    assert.match((await workspace.protectedReason(join(ws, '..tools', '.vscode', 'tasks.json'))) ?? '', /\.vscode\//);
    await runner.run({ id: 'c1', name: 'write_file', arguments: JSON.stringify({ path: '..tools/.vscode/tasks.json', content: '{}' }) }, runOptions());
    assert.equal(asked.length, 1);
    assert.throws(() => readFileSync(join(ws, '..tools', '.vscode', 'tasks.json')), 'nothing written');
  });

  it('loads AGENTS.md from a folder named ..shared, and one linked there from the root', async () => {
    writeFileSync(join(ws, '..shared', 'AGENTS.md'), 'Shared rules.');
    symlinkSync(join(ws, '..shared', 'AGENTS.md'), join(ws, 'AGENTS.md'));
    const report = await loadInstructions({ workspaceFolders: [ws], activeFile: join(ws, '..shared', 'a.ts'), trusted: true });
    assert.deepEqual(report.files.map((f) => [f.path, f.status, f.reason]), [
      [join(ws, 'AGENTS.md'), 'loaded', undefined],
      [join(ws, '..shared', 'AGENTS.md'), 'skipped', 'already loaded (the same file through a link)'],
    ]);
    assert.match(report.text, /Shared rules\./);
  });
});
