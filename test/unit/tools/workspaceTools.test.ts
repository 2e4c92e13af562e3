import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { WorkspaceToolRunner } from '../../../src/core/agent/workspaceToolRunner';
import { workspaceTools } from '../../../src/core/tools/builtinTools';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/tools/types';
import { resolveInWorkspace } from '../../../src/core/tools/workspacePaths';

describe('workspace tools', function () {
  this.timeout(30_000);
  let root: string;
  let ws: string;
  let other: string;
  let outside: string;
  let asked: ApprovalRequest[];
  let decision: ApprovalDecision;
  let trusted: boolean;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-tools-'));
    ws = join(root, 'app');
    other = join(root, 'lib');
    outside = join(root, 'secret');
    for (const d of [ws, other, outside, join(ws, 'src'), join(ws, 'node_modules', 'x')]) mkdirSync(d, { recursive: true });
    writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\nexport const b = 2;\nexport const a2 = 1;\n');
    writeFileSync(join(ws, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\n');
    writeFileSync(join(ws, 'bin.dat'), Buffer.from([0, 1, 2, 3]));
    writeFileSync(join(other, 'lib.ts'), 'lib\n');
    writeFileSync(join(outside, 'key.txt'), 'TOP SECRET\n');
    symlinkSync(outside, join(ws, 'escape'));
    asked = [];
    decision = 'approved';
    trusted = true;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const runner = () =>
    new WorkspaceToolRunner(
      workspaceTools(),
      () => ({ folders: [ws, other], trusted }),
      () => ({ commands: 'ask', edits: 'ask' }),
      async (request) => (asked.push(request), decision),
      { commandTimeoutMs: 10_000, maxCommandOutputBytes: 64 * 1024, maxReadBytes: 1024 * 1024 },
      { readResult: async () => '', compact: async () => '', searchTools: async () => '', activateSkill: async () => '' },
    );
  const run = async (name: string, args: Record<string, unknown>, signal = new AbortController().signal) => {
    const r = await runner().run({ id: 'c1', name, arguments: JSON.stringify(args) }, { signal, onApprovalNeeded: () => undefined, onApprovalResolved: () => undefined });
    return { ...r, text: Buffer.isBuffer(r.output) || r.output instanceof Uint8Array ? Buffer.from(r.output).toString('utf8') : String(r.output) };
  };

  it('resolves paths only inside the workspace folders', async () => {
    const info = { folders: [ws, other], trusted: true };
    assert.equal((await resolveInWorkspace('src/a.ts', info, { mustExist: true })).relative, 'src/a.ts');
    assert.equal((await resolveInWorkspace('lib/lib.ts', info, { mustExist: true })).folder.endsWith('lib'), true, 'multi-root: folder name selects the folder');
    assert.equal((await resolveInWorkspace(join(ws, 'src', 'a.ts'), info, { mustExist: true })).relative, 'src/a.ts');
    await assert.rejects(resolveInWorkspace('../secret/key.txt', info, { mustExist: true }), /outside the workspace folders/);
    await assert.rejects(resolveInWorkspace(join(outside, 'key.txt'), info, { mustExist: true }), /outside the workspace folders/);
    await assert.rejects(resolveInWorkspace('escape/key.txt', info, { mustExist: true }), /through a symbolic link/);
    await assert.rejects(resolveInWorkspace('escape/new.txt', info, { mustExist: false }), /through a symbolic link/, 'a write target behind a link is refused');
    await assert.rejects(resolveInWorkspace('a\0b', info, { mustExist: false }), /NUL byte/);
  });

  it('read_file returns numbered line ranges and refuses binary files and escapes', async () => {
    const r = await run('read_file', { path: 'src/a.ts', start_line: 2, end_line: 3 });
    assert.equal(r.text, 'src/a.ts (lines 2–3 of 3)\n2  export const b = 2;\n3  export const a2 = 1;');
    assert.match((await run('read_file', { path: 'bin.dat' })).text, /binary file/);
    const escape = await run('read_file', { path: 'escape/key.txt' });
    assert.equal(escape.isError, true);
    assert.doesNotMatch(escape.text, /TOP SECRET/);
  });

  it('list_files is sorted, marks folders and skips node_modules', async () => {
    const r = await run('list_files', { depth: 2 });
    assert.match(r.text, /^bin\.dat\ncrlf\.txt\nescape@\nsrc\/\nsrc\/a\.ts/);
    assert.match(r.text, /\(skipped: node_modules\)/);
  });

  it('search_text finds literals and regexes, and reports a bad regex clearly', async () => {
    assert.equal((await run('search_text', { query: 'const b' })).text, 'src/a.ts:2: export const b = 2;');
    assert.match((await run('search_text', { query: 'a\\d', is_regex: true })).text, /src\/a\.ts:3:/);
    const bad = await run('search_text', { query: '(', is_regex: true });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /invalid regular expression/);
  });

  it('run_command reports output and exit code after approval', async () => {
    const r = await run('run_command', { command: 'echo out; echo err >&2; exit 3' });
    assert.match(r.text, /out\nerr\n\n\[exit code 3\]/);
    assert.equal(r.isError, true);
    assert.equal(asked[0].kind, 'command');
  });

  it('run_command: a denial reaches the model as a result; untrusted workspaces never run it', async () => {
    decision = 'denied';
    const denied = await run('run_command', { command: `touch ${join(ws, 'ran')}` });
    assert.equal(denied.text, 'The user denied running this command.');
    trusted = false;
    decision = 'approved';
    const untrusted = await run('run_command', { command: `touch ${join(ws, 'ran')}` });
    assert.match(untrusted.text, /disabled in an untrusted workspace/);
    assert.equal(asked.length, 1, 'no approval was even asked in restricted mode');
    assert.throws(() => readFileSync(join(ws, 'ran')));
  });

  it('run_command kills the whole process group on timeout and keeps head and tail of huge output', async () => {
    const started = Date.now();
    const slow = await run('run_command', { command: 'sleep 30 & sleep 30', timeout_seconds: 1 });
    assert.ok(Date.now() - started < 5_000);
    assert.match(slow.text, /timed out after 1 s/);
    const big = await run('run_command', { command: 'yes line | head -c 5000000; echo; echo LAST' });
    assert.ok(Buffer.byteLength(big.text) < 70 * 1024);
    assert.match(big.text, /bytes of output dropped/);
    assert.match(big.text, /LAST\n\n\[exit code 0\]$/);
  });

  it('edit_file replaces exact text with approval and a diff, and fails clearly when absent or ambiguous', async () => {
    const absent = await run('edit_file', { path: 'src/a.ts', old_text: 'nope', new_text: 'x' });
    assert.match(absent.text, /old_text was not found in src\/a\.ts/);
    const ambiguous = await run('edit_file', { path: 'src/a.ts', old_text: '= 1;', new_text: '= 9;' });
    assert.match(ambiguous.text, /matches 2 places in src\/a\.ts \(lines 1, 3\)/);
    const ok = await run('edit_file', { path: 'src/a.ts', old_text: 'export const b = 2;', new_text: 'export const b = 20;' });
    assert.match(ok.text, /Edited src\/a\.ts: 1 replacement at line 2/);
    assert.match(asked[asked.length - 1].detail ?? '', /-export const b = 2;\n\+export const b = 20;/);
    assert.equal(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), 'export const a = 1;\nexport const b = 20;\nexport const a2 = 1;\n');
    await run('edit_file', { path: 'crlf.txt', old_text: 'one\ntwo', new_text: 'uno\ndos' });
    assert.equal(readFileSync(join(ws, 'crlf.txt'), 'utf8'), 'uno\r\ndos\r\nthree\r\n', 'CRLF preserved');
  });

  it('a denied edit leaves the file unchanged; write_file creates files inside the workspace only', async () => {
    decision = 'denied';
    const denied = await run('write_file', { path: 'src/a.ts', content: 'gone' });
    assert.match(denied.text, /The user denied writing src\/a\.ts/);
    assert.match(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), /export const a = 1/);
    decision = 'approved';
    assert.match((await run('write_file', { path: 'new/dir/b.ts', content: 'b\n' })).text, /Created new\/dir\/b\.ts/);
    assert.equal(readFileSync(join(ws, 'new', 'dir', 'b.ts'), 'utf8'), 'b\n');
    assert.match((await run('write_file', { path: '../secret/x', content: 'x' })).text, /outside the workspace folders/);
  });

  it('invalid JSON arguments become a readable error', async () => {
    const r = await runner().run({ id: 'c9', name: 'read_file', arguments: '{"path": ' }, { signal: new AbortController().signal, onApprovalNeeded: () => undefined, onApprovalResolved: () => undefined });
    assert.match(String(r.output), /read_file: the arguments are not valid JSON/);
  });
});
