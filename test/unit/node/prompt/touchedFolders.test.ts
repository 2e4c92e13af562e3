import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { loadInstructions } from '../../../../src/node/prompt/agentsMd';
import { outputText, runOptions, testRegistry } from '../../../support/toolRegistry';

/** A nested AGENTS.md applies once the agent works in its folder, not only when its file is the active editor. */
describe('AGENTS.md of the folders the agent works in', () => {
  let ws: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-touched-')));
    mkdirSync(join(ws, 'lib', 'deep'), { recursive: true });
    mkdirSync(join(ws, 'docs'));
    writeFileSync(join(ws, 'AGENTS.md'), 'root rule');
    writeFileSync(join(ws, 'lib', 'AGENTS.md'), 'lib rule: never use default exports');
    writeFileSync(join(ws, 'lib', 'deep', 'AGENTS.md'), 'deep rule');
    writeFileSync(join(ws, 'lib', 'util.ts'), 'export const x = 1;\n');
    writeFileSync(join(ws, 'docs', 'AGENTS.md'), 'docs rule');
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  /** Runs tool calls through the real registry and Node workspace, collecting the paths they resolved. */
  async function touchedBy(calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<string[]> {
    const touched: string[] = [];
    const registry = testRegistry({ tools: builtinTools(), folders: [ws], ask: async () => ({ approved: true }), onPathResolved: (_tool, path) => touched.push(path.absolute) });
    for (const [i, call] of calls.entries()) {
      const result = await registry.run({ id: `c${i}`, name: call.name, arguments: JSON.stringify(call.arguments) }, runOptions());
      assert.ok(!result.isError, outputText(result));
    }
    return touched;
  }

  it('loads lib/AGENTS.md after the agent reads a file in lib/, with no active editor, and says why', async () => {
    const before = await loadInstructions({ workspaceFolders: [ws], trusted: true });
    assert.doesNotMatch(before.text, /lib rule/);
    const touchedPaths = await touchedBy([{ name: 'read_file', arguments: { path: 'lib/util.ts' } }]);
    const report = await loadInstructions({ workspaceFolders: [ws], touchedPaths, trusted: true });
    assert.match(report.text, /lib rule/);
    assert.doesNotMatch(report.text, /deep rule|docs rule/, 'only the folders on the way to what was touched');
    const lib = report.files.find((f) => f.path === join(ws, 'lib', 'AGENTS.md'));
    assert.deepEqual({ status: lib?.status, because: lib?.because }, { status: 'loaded', because: 'the agent worked in this folder' });
    const part = report.parts.find((p) => p.path === join(ws, 'lib', 'AGENTS.md'));
    assert.equal(part?.followsActiveFile, true, 'a nested file goes in the dynamic part, so the stable prefix stays cached');
  });

  it('loads the files down to a folder the agent listed or searched, root → leaf', async () => {
    const touchedPaths = await touchedBy([
      { name: 'list_files', arguments: { path: 'lib/deep' } },
      { name: 'search_text', arguments: { query: 'rule', path: 'docs' } },
    ]);
    const report = await loadInstructions({ workspaceFolders: [ws], touchedPaths, trusted: true });
    const order = ['root rule', 'docs rule', 'lib rule', 'deep rule'].map((t) => report.text.indexOf(t));
    assert.ok(order.every((p, i) => p >= 0 && (i === 0 || p > order[i - 1])), report.text);
  });

  it('loads it after an edit in that folder', async () => {
    const touchedPaths = await touchedBy([{ name: 'edit_file', arguments: { path: 'lib/util.ts', old_text: 'x = 1', new_text: 'x = 2' } }]);
    assert.match((await loadInstructions({ workspaceFolders: [ws], touchedPaths, trusted: true })).text, /lib rule/);
  });

  it('never loads it in an untrusted workspace', async () => {
    const touchedPaths = await touchedBy([{ name: 'read_file', arguments: { path: 'lib/util.ts' } }]);
    const report = await loadInstructions({ workspaceFolders: [ws], touchedPaths, trusted: false });
    assert.equal(report.text, '');
    assert.equal(report.files.find((f) => f.path === join(ws, 'lib', 'AGENTS.md'))?.reason, 'the workspace is not trusted');
  });
});
