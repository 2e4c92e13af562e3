import { strict as assert } from 'assert';
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { commandSession } from '../../../support/toolRegistry';

const session = commandSession;

function packageJson(dir: string, scripts: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', version: '1.0.0', scripts }, null, 2));
}

describe('"Allow … for this session" on a command runs only what the user saw', function () {
  this.timeout(60_000);
  let ws: string;
  const notifier = process.env.npm_config_update_notifier;
  before(() => {
    // npm must not reach the registry to check for its own updates.
    process.env.npm_config_update_notifier = 'false';
  });
  after(() => (notifier === undefined ? delete process.env.npm_config_update_notifier : (process.env.npm_config_update_notifier = notifier)));
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-allow-')));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('after `npm test` is allowed, `npm test` runs again without asking, but npm options that inject code ask', async () => {
    packageJson(ws, { test: 'node -e "console.log(42)"' });
    const s = session(ws);
    assert.match((await s.run('npm test')).text, /42/);
    assert.match((await s.run('npm test')).text, /42/);
    assert.equal(s.asked.length, 1, 'the allowed command did not ask again');
    const inject = `npm test "--node-options=--import=data:text/javascript,import('fs').then(function(f){f.writeFileSync('pwned','x')})"`;
    assert.equal((await s.run(inject)).denied, true);
    assert.equal(s.asked.length, 2, 'the injected option asked');
    assert.equal(existsSync(join(ws, 'pwned')), false);
    assert.equal(s.asked[1].allowance, undefined, 'and its card offers no allowance');
    assert.match(s.asked[1].noAllowance ?? '', /--node-options/);
  });

  it('approving `git -C . status` offers no allowance, so git aliases and --receive-pack ask', async () => {
    const s = session(ws);
    await s.run('git -C . status');
    assert.equal(s.asked[0].allowForSession, undefined, 'no "Allow `git`"');
    assert.equal((await s.run(`git -c 'alias.x=!touch pwned' x`)).denied, true);
    assert.equal((await s.run(`git push '--receive-pack=touch pwned' origin`)).denied, true);
    assert.equal(s.asked.length, 3);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('`git status` allowed runs again (and with a path), while other git subcommands ask', async () => {
    execFileSync('git', ['init', '-q'], { cwd: ws });
    const s = session(ws);
    await s.run('git status');
    assert.equal(s.asked[0].allowForSession, '`git status` (plus more plain words) in the workspace folder');
    await s.run('git status');
    await s.run('git status src');
    assert.equal(s.asked.length, 1);
    assert.equal((await s.run('git status --porcelain')).denied, true, 'an option the user did not see asks');
    assert.equal((await s.run('git log')).denied, true);
    assert.equal(s.asked.length, 3);
  });

  it('approving a `find` offers no allowance, so `find -exec` asks', async () => {
    const s = session(ws);
    await s.run(`find . -name '*.md'`);
    assert.equal(s.asked[0].allowForSession, undefined);
    assert.match(s.asked[0].noAllowance ?? '', /^find: /);
    assert.equal((await s.run('find . -maxdepth 0 -exec touch pwned {} +')).denied, true);
    assert.equal(s.asked.length, 2);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('an escaped command substitution that bash expands asks after `npm test` is allowed', async () => {
    packageJson(ws, { test: 'node -e 0' });
    const s = session(ws);
    await s.run('npm test');
    assert.equal((await s.run('npm test ${x:=\\$\\(touch pwned\\)} ${x@P}')).denied, true);
    assert.equal(s.asked.length, 2);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('an allowance is bound to its working folder: `npm test` in sub/ asks, and its card shows sub/package.json\'s script', async () => {
    packageJson(ws, { test: 'node -e 0' });
    packageJson(join(ws, 'sub'), { test: 'node -e "require(\'fs\').writeFileSync(\'pwned\', \'x\')"' });
    const s = session(ws);
    await s.run('npm test');
    assert.equal((await s.run('npm test', 'sub')).denied, true);
    assert.equal(s.asked.length, 2);
    assert.equal(existsSync(join(ws, 'sub', 'pwned')), false);
    assert.match(s.asked[1].runs ?? '', /^npm runs these scripts from sub\/package\.json:\ntest: node -e "require\('fs'\)\.writeFileSync/);
    assert.equal(s.asked[1].allowForSession, '`npm test` in sub while its scripts in sub/package.json stay unchanged');
  });

  it('npm in a folder without package.json uses the nearest one upward: the card shows that one\'s scripts', async () => {
    packageJson(ws, { pretest: 'echo before', test: 'echo testing', posttest: 'echo after' });
    mkdirSync(join(ws, 'src', 'deep'), { recursive: true });
    const s = session(ws);
    const ran = await s.run('npm test', 'src/deep');
    assert.match(ran.text, /before[\s\S]*testing[\s\S]*after/);
    assert.equal(s.asked[0].runs, 'npm runs these scripts from package.json:\npretest: echo before\ntest: echo testing\nposttest: echo after');
  });

  it('the card shows the script npm will run, with its pre and post scripts, and the allowance says what it covers', async () => {
    packageJson(ws, { pretest: 'echo before', test: 'echo testing', posttest: 'echo after', build: 'tsc' });
    const s = session(ws, { approved: false });
    await s.run('npm test');
    assert.equal(s.asked[0].runs, 'npm runs these scripts from package.json:\npretest: echo before\ntest: echo testing\nposttest: echo after');
    assert.equal(s.asked[0].allowForSession, '`npm test` in the workspace folder while its scripts in package.json stay unchanged');
  });

  it('changing the script (or its pre script, or .npmrc) on disk ends the allowance', async () => {
    packageJson(ws, { test: 'echo one' });
    const s = session(ws);
    await s.run('npm test');
    await s.run('npm test');
    assert.equal(s.asked.length, 1);
    packageJson(ws, { test: 'node -e "require(\'fs\').writeFileSync(\'pwned\', \'x\')"' });
    assert.equal((await s.run('npm test')).denied, true, 'the changed script asks');
    assert.equal(existsSync(join(ws, 'pwned')), false);
    packageJson(ws, { test: 'echo one', pretest: 'touch pwned' });
    assert.equal((await s.run('npm test')).denied, true, 'a new pre script asks');
    packageJson(ws, { test: 'echo one' });
    writeFileSync(join(ws, '.npmrc'), 'node-options=--require=./evil.js\n');
    assert.equal((await s.run('npm test')).denied, true, 'new npm settings ask');
    assert.equal(s.asked.length, 4);
    assert.equal(existsSync(join(ws, 'pwned')), false);
  });

  it('a benign change elsewhere in package.json keeps the allowance', async () => {
    packageJson(ws, { test: 'echo one' });
    const s = session(ws);
    await s.run('npm test');
    packageJson(ws, { test: 'echo one', lint: 'eslint .' });
    assert.match((await s.run('npm test')).text, /one/);
    assert.equal(s.asked.length, 1);
  });

  it('`ls` allowed with its options covers more paths inside the workspace, not new options or paths outside', async () => {
    mkdirSync(join(ws, 'src'));
    const s = session(ws);
    await s.run('ls -a');
    assert.equal(s.asked[0].allowForSession, '`ls -a` (plus more paths inside the workspace) in the workspace folder');
    await s.run('ls -a src');
    assert.equal(s.asked.length, 1);
    assert.equal((await s.run('ls -a /')).denied, true);
    assert.equal((await s.run('ls -a ..')).denied, true);
    assert.equal((await s.run('ls -aR')).denied, true);
    assert.equal(s.asked.length, 4);
  });
});
