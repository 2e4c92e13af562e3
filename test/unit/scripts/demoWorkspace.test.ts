/** `npm start` opens a demo workspace that lies outside the clone and is a repository of its own, so VS Code raises no git prompt. */
import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
type DemoWorkspace = { demoWorkspaceFolder(env: Record<string, string | undefined>, repo?: string): string; prepareDemoWorkspace(target: string, repo?: string): string };
// The script is an ES module; esbuild would turn a plain import() into require().
const importModule = new Function('p', 'return import(p)') as (p: string) => Promise<DemoWorkspace>;
const load = () => importModule(path.join(ROOT, 'scripts', 'vscode', 'demo-workspace.mjs'));

describe('npm start: the demo workspace', () => {
  let dir: string;
  beforeEach(() => (dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tally-demo-ws-')))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is outside the clone by default, and a folder inside the clone is never used', async () => {
    const { demoWorkspaceFolder } = await load();
    const outside = (p: string) => path.relative(ROOT, p).startsWith('..');
    assert.ok(outside(demoWorkspaceFolder({ XDG_CACHE_HOME: dir })), 'the default is in the cache folder');
    assert.ok(outside(demoWorkspaceFolder({ TALLY_DEMO_WORKSPACE: path.join(ROOT, '.vscode-test', 'product', 'demo-workspace') })), 'a folder inside the clone is refused');
  });

  it('holds the demo files in a git repository of its own (its top level is the workspace), and keeps what changed on the next start', async () => {
    const { prepareDemoWorkspace } = await load();
    const target = prepareDemoWorkspace(path.join(dir, 'demo'));
    assert.equal(readFileSync(path.join(target, 'AGENTS.md'), 'utf8'), readFileSync(path.join(ROOT, 'media', 'demo-workspace', 'AGENTS.md'), 'utf8'));
    assert.ok(existsSync(path.join(target, 'src', 'math.js')));
    const top = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: target, encoding: 'utf8' }).trim();
    assert.equal(realpathSync(top), realpathSync(target), 'git finds the workspace itself, not a repository above it');
    assert.equal(execFileSync('git', ['status', '--porcelain'], { cwd: target, encoding: 'utf8' }), '', 'the demo files are committed');
    writeFileSync(path.join(target, 'src', 'math.js'), 'changed by the agent\n');
    prepareDemoWorkspace(target);
    assert.equal(readFileSync(path.join(target, 'src', 'math.js'), 'utf8'), 'changed by the agent\n');
  });
});
