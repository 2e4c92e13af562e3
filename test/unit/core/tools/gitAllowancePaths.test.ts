import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { gitWordOutside } from '../../../../src/core/tools/gitArguments';
import { commandSession } from '../../../support/toolRegistry';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('a git allowance covers only revisions and paths inside the repository\'s work tree', function () {
  this.timeout(60_000);
  let ws: string;
  let outside: string;
  let secret: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-gitpaths-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'tally-gitpaths-outside-')));
    secret = join(outside, 'id_ed25519');
    writeFileSync(secret, 'PRIVATE-KEY-BYTES\n');
    git(ws, 'init', '-q');
    writeFileSync(join(ws, 'a.txt'), 'one\n');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src', 'b.txt'), 'two\n');
    git(ws, 'add', '.');
    git(ws, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'first');
    writeFileSync(join(ws, 'a.txt'), 'one changed\n');
  });
  afterEach(() => {
    rmSync(ws, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('after "Allow `git diff`", a diff against a file outside the repository (git\'s implicit --no-index) asks and reads nothing', async () => {
    const s = commandSession(ws);
    await s.run('git diff');
    assert.equal(s.asked[0].allowForSession, '`git diff` (plus more plain words) in the workspace folder');
    for (const line of [`git diff ${secret} /dev/null`, `git diff /dev/null ${secret}`, `git diff ../${outside.split('/').pop()}/id_ed25519 a.txt`, `git diff src/../../${outside.split('/').pop()}/id_ed25519 a.txt`]) {
      const ran = await s.run(line);
      assert.equal(ran.denied, true, `${line} asked`);
      assert.doesNotMatch(ran.text, /PRIVATE-KEY-BYTES/, line);
    }
    assert.equal(s.asked.length, 5);
  });

  it('the same for log, show, status and ls-files, and from a subfolder', async () => {
    for (const sub of ['log', 'show', 'status', 'ls-files']) {
      const s = commandSession(ws);
      await s.run(`git ${sub}`, 'src');
      for (const line of [`git ${sub} ../..`, `git ${sub} -- ${secret}`, `git ${sub} ':(top)../x'`, `git ${sub} ':/../x'`, `git ${sub} ~`, `git ${sub} 'a\\b'`]) {
        assert.equal((await s.run(line, 'src')).denied, true, line);
      }
      assert.match((await s.run(`git ${sub} ../a.txt`, 'src')).text, sub === 'ls-files' ? /a\.txt/ : /./, 'a path inside the work tree runs');
      assert.equal(s.asked.length, 7, sub);
    }
  });

  it('a path through a link that leads out of the workspace asks', async () => {
    symlinkSync(outside, join(ws, 'keys'));
    const s = commandSession(ws);
    await s.run('git diff');
    assert.equal((await s.run('git diff keys/id_ed25519 a.txt')).denied, true);
    assert.equal(s.asked.length, 2);
  });

  it('revisions, pathspecs inside the work tree and a `--` separator run without asking', async () => {
    const s = commandSession(ws);
    await s.run('git diff');
    assert.match((await s.run('git diff a.txt')).text, /one changed/);
    assert.match((await s.run('git diff HEAD -- a.txt')).text, /one changed/);
    assert.match((await s.run("git diff ':(top)a.txt'")).text, /one changed/);
    assert.equal(s.asked.length, 1);
  });

  it('an abbreviated unsafe option (`--outp` for `--output`, `--ext` for `--ext-diff`) gets no allowance', async () => {
    const s = commandSession(ws, { approved: false });
    for (const line of ['git diff --outp=.git/hooks/pre-commit', 'git diff --ext', 'git log --no-inde', 'git ls-files --exclude-from=/etc/passwd', 'git ls-files -X /etc/passwd']) {
      await s.run(line);
    }
    for (const card of s.asked) {
      assert.equal(card.allowForSession, undefined, card.command);
      assert.match(card.noAllowance ?? '', /can change what git runs or reads/, card.command);
    }
  });

  it('gitWordOutside: what climbs out, what stays in', () => {
    const inside = ['HEAD', 'main..topic', 'origin/main', 'src', 'src/../a.txt', '--', ':(top)src', ':/src', ':!vendor', ':(exclude,icase)x', 'HEAD:a.txt', '../a.txt'];
    for (const word of inside) assert.equal(gitWordOutside(word, ['src']), undefined, word);
    const out = ['/etc/passwd', '../..', 'src/../../../x', '~/x', '~', 'C:x', 'a\\b', ':(top)../x', ':/..', ':(top,icase)/etc'];
    for (const word of out) assert.ok(gitWordOutside(word, ['src']), word);
  });
});

describe('the git directory a command uses is found as git finds it', function () {
  this.timeout(60_000);
  let ws: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-gitdir-')));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('a sub/.git whose commondir names no repository is skipped, as git skips it: the card shows the root repository\'s fsmonitor', async () => {
    git(ws, 'init', '-q');
    git(ws, 'config', 'core.fsmonitor', 'touch pwned');
    mkdirSync(join(ws, 'sub', '.git'), { recursive: true });
    mkdirSync(join(ws, 'elsewhere'));
    writeFileSync(join(ws, 'sub', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(ws, 'sub', '.git', 'commondir'), '../../elsewhere\n');
    assert.equal(git(join(ws, 'sub'), 'rev-parse', '--absolute-git-dir').trim(), join(ws, '.git'), 'git itself uses the root repository');
    const s = commandSession(ws, { approved: false });
    await s.run('git status', 'sub');
    assert.equal(s.asked[0].runs, 'git can run these programs set in .git/config:\ncore.fsmonitor = touch pwned');
  });

  it('a sub/.git whose commondir names a repository uses that repository\'s config, as git does', async () => {
    git(ws, 'init', '-q');
    git(ws, 'init', '-q', '--bare', 'shared.git');
    git(join(ws, 'shared.git'), 'config', 'diff.external', 'touch pwned');
    mkdirSync(join(ws, 'sub', '.git'), { recursive: true });
    writeFileSync(join(ws, 'sub', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(ws, 'sub', '.git', 'commondir'), '../../shared.git\n');
    assert.equal(git(join(ws, 'sub'), 'rev-parse', '--absolute-git-dir').trim(), join(ws, 'sub', '.git'));
    const s = commandSession(ws, { approved: false });
    await s.run('git status', 'sub');
    assert.equal(s.asked[0].runs, 'git can run these programs set in shared.git/config:\ndiff.external = touch pwned');
  });

  it('a HEAD that is a link gets no allowance (git judges it by where it points)', async () => {
    git(ws, 'init', '-q');
    mkdirSync(join(ws, 'sub', '.git', 'objects'), { recursive: true });
    mkdirSync(join(ws, 'sub', '.git', 'refs'));
    writeFileSync(join(ws, 'sub', 'head-text'), 'ref: refs/heads/main\n');
    symlinkSync(join(ws, 'sub', 'head-text'), join(ws, 'sub', '.git', 'HEAD'));
    const s = commandSession(ws, { approved: false });
    await s.run('git status', 'sub');
    assert.equal(s.asked[0].allowForSession, undefined);
    assert.match(s.asked[0].noAllowance ?? '', /HEAD is a link/);
  });
});

describe('git settings that make a read run a program through a remote', function () {
  this.timeout(60_000);
  let ws: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-gitremote-')));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('an ext:: remote, a url rewrite to ext:: and protocol.ext.allow are listed on the card', async () => {
    git(ws, 'init', '-q');
    git(ws, 'config', 'protocol.ext.allow', 'always');
    git(ws, 'config', 'remote.origin.url', 'ext::sh -c touch% pwned');
    git(ws, 'config', 'remote.other.url', 'https://example.com/x.git');
    git(ws, 'config', 'url.ext::sh -c touch% pwned #.insteadOf', 'https://');
    const s = commandSession(ws, { approved: false });
    await s.run('git log -p');
    assert.equal(
      s.asked[0].runs,
      'git can run these programs set in .git/config:\nprotocol.ext.allow = always\nremote.origin.url = ext::sh -c touch% pwned\nurl.ext::sh -c touch% pwned #.insteadof = https://',
    );
  });
});
