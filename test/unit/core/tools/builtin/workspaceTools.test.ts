import { strict as assert } from 'assert';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { builtinTools } from '../../../../../src/core/tools/builtin';
import type { ApprovalDecision, ApprovalRequest } from '../../../../../src/core/tools/types';
import { resolveInWorkspace } from '../../../../../src/node/tools/workspacePaths';
import { outputText, runOptions, testRegistry } from '../../../../support/toolRegistry';

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

  const runner = () => testRegistry({ tools: builtinTools(), folders: [ws, other], trusted, ask: async (request) => (asked.push(request), { approved: decision === 'approved' }) });
  /** Runs a tool whose approval prompt first calls `whileAsking` (the user is slow; the disk changes meanwhile). */
  const runWithApproval = async (name: string, args: Record<string, unknown>, whileAsking: () => void) => {
    const r = await testRegistry({ tools: builtinTools(), folders: [ws, other], trusted, ask: async () => (whileAsking(), { approved: true }) }).run({ id: 'c2', name, arguments: JSON.stringify(args) }, runOptions());
    return { ...r, text: outputText(r) };
  };
  const run = async (name: string, args: Record<string, unknown>, signal = new AbortController().signal) => {
    const r = await runner().run({ id: 'c1', name, arguments: JSON.stringify(args) }, runOptions(signal));
    return { ...r, text: outputText(r) };
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
    // A duration no other process uses names the background sleep among this machine's processes (its pid inside the sandbox is not the host's).
    const marker = `30.${process.pid}${Date.now() % 1000}`;
    const slow = await run('run_command', { command: `sleep ${marker} & echo started > ${join(ws, 'bg.started')}; sleep 30`, timeout_seconds: 1 });
    assert.match(slow.text, /timed out after 1 s/);
    assert.ok(readFileSync(join(ws, 'bg.started'), 'utf8'));
    // The command's background child went with it: the whole group was killed, not just the shell.
    assert.deepEqual(processesRunning(['sleep', marker]), [], 'the background sleep still runs');
    rmSync(join(ws, 'bg.started'));
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

  it('write_file refuses a dangling symlink that points outside the workspace, and does not create the target', async () => {
    symlinkSync(join(outside, 'pwned.txt'), join(ws, 'link.txt'));
    const r = await run('write_file', { path: 'link.txt', content: 'owned' });
    assert.equal(r.isError, true);
    assert.equal(r.text, 'write_file: the path "link.txt" leads outside the workspace folders through a symbolic link');
    assert.equal(existsSync(join(outside, 'pwned.txt')), false, 'nothing was created outside');
    assert.equal(asked.length, 0, 'the user is not even asked');
    // A dangling link to a folder outside, used as a parent folder of a new file.
    symlinkSync(join(outside, 'newdir'), join(ws, 'dirlink'));
    const nested = await run('write_file', { path: 'dirlink/x.txt', content: 'owned' });
    assert.equal(nested.text, 'write_file: the path "dirlink/x.txt" leads outside the workspace folders through a symbolic link');
    assert.equal(existsSync(join(outside, 'newdir')), false);
    // A chain: link2 -> link3 -> outside (dangling at the end).
    symlinkSync(join(ws, 'link3'), join(ws, 'link2'));
    symlinkSync(join(outside, 'chain.txt'), join(ws, 'link3'));
    assert.match((await run('write_file', { path: 'link2', content: 'x' })).text, /leads outside the workspace folders through a symbolic link/);
    assert.equal(existsSync(join(outside, 'chain.txt')), false);
    // A symlink loop is refused with a clear reason, not followed forever.
    symlinkSync(join(ws, 'loop-b'), join(ws, 'loop-a'));
    symlinkSync(join(ws, 'loop-a'), join(ws, 'loop-b'));
    assert.equal((await run('write_file', { path: 'loop-a', content: 'x' })).text, 'write_file: the path "loop-a" is a symbolic link loop');
  });

  it('write_file and edit_file go through a symlink to a file inside the workspace (the link stays a link)', async () => {
    symlinkSync(join(ws, 'src', 'a.ts'), join(ws, 'alias.ts'));
    const edited = await run('edit_file', { path: 'alias.ts', old_text: 'export const b = 2;', new_text: 'export const b = 3;' });
    assert.match(edited.text, /^Edited alias\.ts: 1 replacement at line 2/);
    assert.match(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), /export const b = 3;/);
    assert.match((await run('write_file', { path: 'alias.ts', content: 'replaced\n' })).text, /^Wrote alias\.ts/);
    assert.equal(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), 'replaced\n');
    assert.equal(lstatSync(join(ws, 'alias.ts')).isSymbolicLink(), true);
    // A dangling link to a new file inside the workspace creates that file.
    symlinkSync(join(ws, 'src', 'fresh.ts'), join(ws, 'fresh-link.ts'));
    assert.match((await run('write_file', { path: 'fresh-link.ts', content: 'new\n' })).text, /^Created fresh-link\.ts/);
    assert.equal(readFileSync(join(ws, 'src', 'fresh.ts'), 'utf8'), 'new\n');
  });

  it('edit_file refuses a symlink to a file outside the workspace and leaves that file unchanged', async () => {
    symlinkSync(join(outside, 'key.txt'), join(ws, 'key-link.txt'));
    const r = await run('edit_file', { path: 'key-link.txt', old_text: 'TOP SECRET', new_text: 'changed' });
    assert.equal(r.isError, true);
    assert.equal(r.text, 'edit_file: the path "key-link.txt" leads outside the workspace folders through a symbolic link');
    assert.equal(readFileSync(join(outside, 'key.txt'), 'utf8'), 'TOP SECRET\n');
  });

  it('a file swapped for a symlink to outside while the user is approving is not written through', async () => {
    writeFileSync(join(ws, 'swap.txt'), 'swap me\n');
    const swapIn = () => {
      rmSync(join(ws, 'swap.txt'));
      symlinkSync(join(outside, 'swapped.txt'), join(ws, 'swap.txt'));
    };
    decision = 'approved';
    const swapped = await runWithApproval('write_file', { path: 'swap.txt', content: 'owned' }, swapIn);
    assert.equal(swapped.isError, true);
    assert.equal(swapped.text, 'write_file: swap.txt changed while waiting for approval (it now leads outside the workspace folders through a symbolic link); nothing was written');
    assert.equal(existsSync(join(outside, 'swapped.txt')), false);
    // edit_file: the outside file exists this time and must stay unchanged.
    rmSync(join(ws, 'swap.txt'));
    writeFileSync(join(ws, 'swap.txt'), 'swap me\n');
    const swapToKey = () => {
      rmSync(join(ws, 'swap.txt'));
      symlinkSync(join(outside, 'key.txt'), join(ws, 'swap.txt'));
    };
    const edited = await runWithApproval('edit_file', { path: 'swap.txt', old_text: 'swap me', new_text: 'owned' }, swapToKey);
    assert.equal(edited.text, 'edit_file: swap.txt changed while waiting for approval (it now leads outside the workspace folders through a symbolic link); nothing was written');
    assert.equal(readFileSync(join(outside, 'key.txt'), 'utf8'), 'TOP SECRET\n');
  });

  it('search_text stops a catastrophic-backtracking regex with a clear error, and the host stays responsive', async () => {
    writeFileSync(join(ws, 'evil.txt'), 'a'.repeat(40) + '!\n');
    // The event loop keeps turning while the search waits on its worker: counted turns run into the
    // hundreds over the pattern's 3 s limit, where a regex on this thread would leave a handful.
    let turns = 0;
    let searching = true;
    const turn = () => {
      turns++;
      if (searching) setImmediate(turn);
    };
    setImmediate(turn);
    const r = await run('search_text', { query: '(a+)+$', is_regex: true });
    searching = false;
    assert.ok(turns > 100, `the event loop kept running during the search (${turns} turns)`);
    assert.equal(r.isError, true);
    assert.equal(r.text, 'search_text: the pattern took longer than 3 s on evil.txt; simplify it (nested quantifiers such as (a+)+ backtrack exponentially)');
    // Normal regex and literal searches are unaffected.
    assert.equal((await run('search_text', { query: 'const a\\d', is_regex: true })).text, 'src/a.ts:3: export const a2 = 1;');
    assert.equal((await run('search_text', { query: 'CONST B' })).text, 'src/a.ts:2: export const b = 2;');
    assert.equal((await run('search_text', { query: '^export', is_regex: true, max_results: 2 })).text, 'src/a.ts:1: export const a = 1;\nsrc/a.ts:2: export const b = 2;\n[stopped at 2 results]');
  });

  it('invalid JSON arguments become a readable error', async () => {
    const r = await runner().run({ id: 'c9', name: 'read_file', arguments: '{"path": ' }, { signal: new AbortController().signal, onApprovalNeeded: () => undefined, onApprovalResolved: () => undefined });
    assert.match(String(r.output), /read_file: the arguments are not valid JSON/);
  });
});

/** Whether a process runs (a zombie waiting to be reaped does not). */
/** The pids of live processes (not zombies) whose command line is `argv`. */
function processesRunning(argv: string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}
