import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { approvalNeed, type ApprovalPolicy } from '../../../../src/core/tools/approval';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { protectedReason } from '../../../../src/node/tools/protectedPaths';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { runOptions, testRegistry } from '../../../support/toolRegistry';

describe('protected paths and the effective approval policy', function () {
  this.timeout(30_000);
  let root: string;
  let ws: string;
  let nested: string;
  let asked: ApprovalRequest[];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tally-protected-'));
    ws = join(root, 'app');
    nested = join(ws, 'packages', 'inner');
    for (const d of [join(ws, '.git'), join(ws, 'src'), nested]) mkdirSync(d, { recursive: true });
    writeFileSync(join(ws, '.git', 'config'), '[core]\n');
    symlinkSync(join(ws, '.git'), join(ws, 'src', 'innocent'));
    asked = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = async (args: Record<string, unknown>, options: { policy?: ApprovalPolicy; trusted?: boolean; folders?: string[]; name?: string } = {}) => {
    const runner = testRegistry({
      tools: builtinTools(),
      folders: options.folders ?? [ws],
      trusted: options.trusted ?? true,
      policy: options.policy ?? { commands: 'always', edits: 'always' },
      ask: async (request) => (asked.push(request), { approved: false }),
    });
    return runner.run({ id: 'c1', name: options.name ?? 'write_file', arguments: JSON.stringify(args) }, runOptions());
  };

  it('names the paths that can run code, case-insensitively and at any depth', () => {
    for (const path of ['.git/config', '.GIT/hooks/pre-commit', '.vscode/settings.json', '.VSCode/tasks.json', '.husky/pre-push', '.github/workflows/ci.yml', '.GitHub/Workflows/x.yml', '.devcontainer/devcontainer.json', '.envrc', '.npmrc', '.yarnrc.yml', 'package.json', 'Package.JSON', 'Makefile', 'packages/inner/package.json', 'a\\b\\.vscode\\launch.json', 'x.code-workspace']) {
      assert.ok(protectedReason(path), path);
    }
    for (const path of ['src/a.ts', '.github/ISSUE_TEMPLATE.md', 'docs/git.md', 'package.json.md', 'vscode/notes.txt']) assert.equal(protectedReason(path), undefined, path);
  });

  it('a write to .git/config asks even when the user setting says always, and says why', async () => {
    const result = await run({ path: '.git/config', content: 'x' });
    assert.equal(asked.length, 1);
    assert.match(asked[0].title, /\.git\/.*can run code/);
    assert.equal(readFileSync(join(ws, '.git', 'config'), 'utf8'), '[core]\n', 'denied: nothing written');
    assert.equal(result.isError, true);
  });

  it('.. and case tricks and symbolic links into .git still ask', async () => {
    await run({ path: 'src/../.GIT/config', content: 'x' });
    await run({ path: 'src/innocent/config', content: 'x' });
    await run({ path: join(ws, 'src', '..', '.vscode', 'settings.json'), content: '{}' });
    assert.equal(asked.length, 3);
    assert.equal(readFileSync(join(ws, '.git', 'config'), 'utf8'), '[core]\n');
  });

  it('a folder nested in another workspace folder is protected from both', async () => {
    await run({ path: 'inner/.vscode/settings.json', content: '{}' }, { folders: [ws, nested] });
    await run({ path: 'packages/inner/Makefile', content: 'all:\n' }, { folders: [ws, nested] });
    assert.equal(asked.length, 2);
  });

  it('an ordinary write follows the user policy; in Restricted Mode it asks whatever the policy says', async () => {
    await run({ path: 'src/a.ts', content: 'a' });
    assert.equal(asked.length, 0, 'user said always');
    assert.equal(readFileSync(join(ws, 'src', 'a.ts'), 'utf8'), 'a');
    await run({ path: 'src/b.ts', content: 'b' }, { trusted: false });
    assert.equal(asked.length, 1);
    assert.match(asked[0].title, /Restricted Mode/);
  });

  it('approvalNeed: protected paths and untrusted workspaces ask; otherwise "always" skips', () => {
    const always: ApprovalPolicy = { commands: 'always', edits: 'always' };
    assert.deepEqual(approvalNeed(always, { kind: 'edit', trusted: true }), { ask: false });
    assert.deepEqual(approvalNeed(always, { kind: 'command', trusted: true }), { ask: false });
    assert.equal(approvalNeed(always, { kind: 'edit', trusted: false }).ask, true);
    assert.equal(approvalNeed(always, { kind: 'command', trusted: false }).ask, true);
    assert.equal(approvalNeed(always, { kind: 'edit', trusted: true, protectedReason: 'it is inside .git/' }).ask, true);
    assert.equal(approvalNeed({ commands: 'ask', edits: 'ask' }, { kind: 'edit', trusted: true }).ask, true);
  });
});
