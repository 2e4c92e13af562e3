import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { parseGitConfig } from '../../../../src/core/tools/gitConfigFile';
import { commandSession } from '../../../support/toolRegistry';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
const session = commandSession;

describe('a git command\'s card shows the programs the repository\'s git config makes it run', function () {
  this.timeout(60_000);
  let ws: string;
  let outside: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-gitcfg-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'tally-gitcfg-outside-')));
  });
  afterEach(() => {
    rmSync(ws, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('the card for `git status` shows core.fsmonitor from .git/config, and denying it runs nothing', async () => {
    git(ws, 'init', '-q');
    git(ws, 'config', 'core.fsmonitor', 'touch pwned');
    const s = session(ws, { approved: false });
    assert.equal((await s.run('git status')).denied, true);
    assert.equal(s.asked[0].runs, 'git can run these programs set in .git/config:\ncore.fsmonitor = touch pwned');
    assert.equal(s.asked[0].allowForSession, '`git status` (plus more plain words) in the workspace folder while .git/config stays unchanged');
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('after `git status` is allowed, changing core.fsmonitor makes the next `git status` ask again', async () => {
    git(ws, 'init', '-q');
    git(ws, 'config', 'core.fsmonitor', 'false');
    const s = session(ws);
    await s.run('git status');
    await s.run('git status');
    assert.equal(s.asked.length, 1, 'the unchanged config keeps the allowance');
    git(ws, 'config', 'core.fsmonitor', 'touch pwned');
    assert.equal((await s.run('git status')).denied, true);
    assert.equal(s.asked.length, 2);
    assert.match(s.asked[1].runs ?? '', /core\.fsmonitor = touch pwned/);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('a clean repository\'s card is as before, and a program added to its config later ends the allowance', async () => {
    git(ws, 'init', '-q');
    const s = session(ws);
    await s.run('git status');
    assert.equal(s.asked[0].runs, undefined);
    assert.equal(s.asked[0].allowForSession, '`git status` (plus more plain words) in the workspace folder');
    writeFileSync(join(ws, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n[diff "x"]\n\ttextconv = touch pwned\n`);
    assert.equal((await s.run('git status')).denied, true);
    assert.match(s.asked[1].runs ?? '', /^git can run these programs set in \.git\/config:\ndiff\.x\.textconv = touch pwned$/);
  });

  it('`git status` runs the post-index-change hook: the card shows it, and changing it ends the allowance', async () => {
    git(ws, 'init', '-q');
    writeFileSync(join(ws, '.git', 'hooks', 'post-index-change'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const s = session(ws);
    await s.run('git status');
    assert.equal(s.asked[0].runs, 'git status runs the hook .git/hooks/post-index-change when it updates the index:\n#!/bin/sh\nexit 0');
    assert.match(s.asked[0].allowForSession ?? '', /while \.git\/config and \.git\/hooks\/post-index-change stay unchanged$/);
    writeFileSync(join(ws, '.git', 'hooks', 'post-index-change'), '#!/bin/sh\ntouch pwned\n', { mode: 0o755 });
    writeFileSync(join(ws, 'tracked'), 'x');
    assert.equal((await s.run('git status')).denied, true);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('a program that a setting names by a path in the workspace binds the allowance to that file\'s text', async () => {
    git(ws, 'init', '-q');
    writeFileSync(join(ws, '.git', 'hooks', 'fsmonitor-watchman'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    git(ws, 'config', 'core.fsmonitor', '.git/hooks/fsmonitor-watchman');
    const s = session(ws);
    await s.run('git status');
    assert.match(s.asked[0].allowForSession ?? '', /while \.git\/config and \.git\/hooks\/fsmonitor-watchman stay unchanged$/);
    await s.run('git status');
    assert.equal(s.asked.length, 1);
    writeFileSync(join(ws, '.git', 'hooks', 'fsmonitor-watchman'), '#!/bin/sh\ntouch pwned\nexit 1\n', { mode: 0o755 });
    assert.equal((await s.run('git status')).denied, true);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('core.hooksPath outside the workspace, core.worktree, or submodules get no allowance', async () => {
    git(ws, 'init', '-q');
    writeFileSync(join(outside, 'post-index-change'), '#!/bin/sh\ntouch pwned\n', { mode: 0o755 });
    git(ws, 'config', 'core.hooksPath', outside);
    const s = session(ws, { approved: false });
    await s.run('git status');
    assert.equal(s.asked[0].allowForSession, undefined);
    assert.match(s.asked[0].noAllowance ?? '', /post-index-change hook lies outside the workspace/);
    git(ws, 'config', 'core.worktree', outside);
    await s.run('git status');
    assert.match(s.asked[1].noAllowance ?? '', /core\.worktree = /);
    git(ws, 'config', '--unset', 'core.worktree');
    git(ws, 'config', '--unset', 'core.hooksPath');
    writeFileSync(join(ws, '.gitmodules'), '[submodule "x"]\n\tpath = x\n');
    await s.run('git status');
    assert.match(s.asked[2].noAllowance ?? '', /submodules/);
  });

  it('git\'s own discovery: a .git folder that is no repository is skipped, and a bare repository\'s config is shown', async () => {
    git(ws, 'init', '-q');
    git(ws, 'config', 'core.fsmonitor', 'touch pwned');
    mkdirSync(join(ws, 'sub', '.git'), { recursive: true });
    writeFileSync(join(ws, 'sub', '.git', 'config'), '[core]\n\tbare = false\n');
    git(ws, 'init', '-q', '--bare', 'store.git');
    git(join(ws, 'store.git'), 'config', 'diff.external', 'touch pwned');
    const s = session(ws, { approved: false });
    await s.run('git status', 'sub');
    await s.run('git diff', 'store.git');
    assert.equal(s.asked[0].runs, 'git can run these programs set in .git/config:\ncore.fsmonitor = touch pwned');
    assert.equal(s.asked[1].runs, 'git can run these programs set in store.git/config:\ndiff.external = touch pwned');
  });

  it('a .git file pointing to a git directory outside the workspace gets no allowance', async () => {
    git(outside, 'init', '-q');
    writeFileSync(join(ws, '.git'), `gitdir: ${join(outside, '.git')}\n`);
    const s = session(ws, { approved: false });
    await s.run('git status');
    assert.equal(s.asked[0].allowForSession, undefined);
    assert.match(s.asked[0].noAllowance ?? '', /^\.git points to a git directory outside the workspace/);
  });

  it('no repository inside the workspace (git would look above it) gets no allowance', async () => {
    const s = session(ws, { approved: false });
    await s.run('git log');
    assert.equal(s.asked[0].allowForSession, undefined);
    assert.match(s.asked[0].noAllowance ?? '', /git would use one outside the workspace/);
  });

  it('include.path in .git/config gets no allowance, and the card says which include', async () => {
    git(ws, 'init', '-q');
    writeFileSync(join(outside, 'evil.cfg'), '[core]\n\tfsmonitor = touch pwned\n');
    git(ws, 'config', 'include.path', join(outside, 'evil.cfg'));
    const s = session(ws, { approved: false });
    await s.run('git status');
    assert.equal(s.asked[0].allowForSession, undefined);
    assert.equal(s.asked[0].noAllowance, `.git/config includes another config file (include.path = ${join(outside, 'evil.cfg')}), which the card cannot show`);
  });

  it('a linked worktree\'s card shows the main repository\'s config', async () => {
    git(ws, 'init', '-q');
    git(ws, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'first');
    git(ws, 'worktree', 'add', '-q', 'wt');
    git(ws, 'config', 'diff.external', 'touch pwned');
    const s = session(ws, { approved: false });
    await s.run('git diff', 'wt');
    assert.equal(s.asked[0].runs, 'git can run these programs set in .git/config:\ndiff.external = touch pwned');
    assert.match(s.asked[0].allowForSession ?? '', /in wt while \.git\/config stays unchanged$/);
  });
});

describe('parseGitConfig reads config as git does', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'tally-gitcfg-parse-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: Record<string, string> = {
    'sections, subsections and case': '[Core]\n\tFSMonitor = touch a\n[Diff "Tool"]\n\tTextConv=b\n[filter.lfs]\n\tclean = c\n',
    'quotes, escapes, comments and continuations': '[core] pager = "less ; -R" # note\n; a comment\n# another\n[alias]\n\tx = !echo \\\n  one\\ttwo \\"q\\"   \n\tbare\n',
    'a value with a quoted # and trailing spaces': '[core]\n\teditor = vim\t"#x"   ;tail\n\tsshCommand=   ssh -i "k k"\n',
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`${name}: the same keys and values as \`git config --list\``, () => {
      const file = join(dir, 'config');
      writeFileSync(file, text);
      const expected = git(dir, 'config', '--file', file, '--list', '-z').split('\0').filter(Boolean).map((entry) => {
        const [key, ...value] = entry.split('\n');
        return `${key}=${value.length ? value.join('\n') : 'true'}`;
      });
      const parsed = parseGitConfig(text);
      assert.ok(!('reason' in parsed), JSON.stringify(parsed));
      assert.deepEqual(parsed.map((e) => `${e.key.toLowerCase()}=${e.value}`), expected.map((e) => e.replace(/^[^=]*/, (k) => k.toLowerCase())));
    });
  }

  it('rejects an unterminated quote or a setting before any section, with the line', () => {
    assert.deepEqual(parseGitConfig('[core]\n\tpager = "less\n'), { reason: 'line 2: a quoted value runs past the end of the line' });
    assert.deepEqual(parseGitConfig('pager = less\n'), { reason: 'line 1: a setting before any section' });
  });
});
