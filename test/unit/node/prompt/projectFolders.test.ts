import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { loadInstructions } from '../../../../src/node/prompt/agentsMd';
import { ignoredFolder, parseIgnoreFile } from '../../../../src/node/prompt/gitignoreRules';
import { outputText, runOptions, testRegistry } from '../../../support/toolRegistry';

/** Nested AGENTS.md files come from the project's own folders only: never a dependency's, .git's or a folder git ignores. */
describe('AGENTS.md only from the project\'s own folders', () => {
  let ws: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), text);
  };
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-ownfolders-')));
    execFileSync('git', ['init', '-q'], { cwd: ws });
    write('AGENTS.md', 'root rule');
    write('src/AGENTS.md', 'src rule');
    write('src/a.ts', 'export {};\n');
    write('node_modules/AGENTS.md', 'INJECTED node_modules rule');
    write('node_modules/left-pad/AGENTS.md', 'INJECTED left-pad rule');
    write('node_modules/left-pad/index.js', 'module.exports = 1;\n');
    write('.git/AGENTS.md', 'INJECTED .git rule');
    write('vendor/lib/AGENTS.md', 'INJECTED vendor rule');
    write('vendor/lib/x.go', 'package lib\n');
    write('.gitignore', 'build/\n/cache\n*.tmp/\n!keep.tmp/\n');
    write('build/AGENTS.md', 'INJECTED build rule');
    write('build/out.js', '1\n');
    write('cache/sub/AGENTS.md', 'INJECTED cache rule');
    write('cache/sub/x.txt', 'x\n');
    write('src/gen/.gitignore', '*\n');
    write('src/gen/deeper/AGENTS.md', 'INJECTED generated rule');
    write('src/gen/deeper/x.txt', 'x\n');
    write('keep.tmp/AGENTS.md', 'kept rule');
    write('keep.tmp/x.txt', 'x\n');
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  async function touchedBy(paths: string[]): Promise<string[]> {
    const touched: string[] = [];
    const registry = testRegistry({ tools: builtinTools(), folders: [ws], onPathResolved: (_tool, path) => touched.push(path.absolute) });
    for (const [i, path] of paths.entries()) {
      const result = await registry.run({ id: `r${i}`, name: 'read_file', arguments: JSON.stringify({ path }) }, runOptions());
      assert.ok(!result.isError, outputText(result));
    }
    return touched;
  }

  it('after reading files in node_modules, .git, vendor/ and ignored folders, none of their AGENTS.md is loaded; the project\'s own still are', async () => {
    const touchedPaths = await touchedBy(['node_modules/left-pad/index.js', 'vendor/lib/x.go', 'build/out.js', 'cache/sub/x.txt', 'src/gen/deeper/x.txt', 'src/a.ts', 'keep.tmp/x.txt', '.git/HEAD']);
    const report = await loadInstructions({ workspaceFolders: [ws], touchedPaths, trusted: true });
    assert.doesNotMatch(report.text, /INJECTED/);
    assert.match(report.text, /root rule/);
    assert.match(report.text, /src rule/);
    assert.match(report.text, /kept rule/, 'a folder a later rule re-includes is the project\'s');
  });

  it('the same for the active file', async () => {
    const report = await loadInstructions({ workspaceFolders: [ws], activeFile: join(ws, 'node_modules', 'left-pad', 'index.js'), trusted: true });
    assert.doesNotMatch(report.text, /INJECTED/);
  });

  it('decides which folders are ignored as `git check-ignore` does', () => {
    const text = ['build/', '/cache', '*.tmp/', '!keep.tmp/', 'docs/**/out', '**/logs', 'a/**', 'x?z', 'star/*', '[ab]c', '\\#hash', 'trailing   ', 'mid/dle', '# comment', ''].join('\n');
    write('.gitignore', `${text}\n`);
    const folders = [
      'build', 'src/build', 'cache', 'src/cache', 'one.tmp', 'keep.tmp', 'docs/out', 'docs/a/b/out', 'logs', 'src/logs', 'a', 'a/b', 'xyz', 'src/xyz', 'ac', 'bc', 'cc',
      '#hash', 'trailing', 'mid/dle', 'src/mid/dle', 'src', 'docs', 'docs/a', 'star', 'star/in',
    ];
    for (const folder of folders) mkdirSync(join(ws, folder), { recursive: true });
    const ignoredByGit = new Set(
      execFileSync('git', ['check-ignore', '--no-index', ...folders.map((f) => `${f}/`)], { cwd: ws, encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/\/$/, '')),
    );
    const rules = parseIgnoreFile(text, '');
    for (const folder of folders) assert.equal(ignoredFolder(folder, rules), ignoredByGit.has(folder), folder);
  });
});
