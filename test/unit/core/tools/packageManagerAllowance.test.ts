import { strict as assert } from 'assert';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';
import { builtinTools } from '../../../../src/core/tools/builtin';
import type { ApprovalRequest } from '../../../../src/core/tools/types';
import { commandSession, runOptions, testRegistry } from '../../../support/toolRegistry';

/**
 * What pnpm and yarn read besides package.json's scripts (settings that set Node options, the
 * yarn release `yarnPath` names, Plug'n'Play's loader, pnpm's hooks file) is shown on the card,
 * binds a "for this session" allowance, and asks before an edit even with edits: always. The
 * package managers themselves need not be installed: a command that asks runs nothing.
 */
describe('pnpm and yarn: everything that changes what a script runs is on the card and binds the allowance', function () {
  this.timeout(60_000);
  let ws: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), text);
  };
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'tally-pm-')));
    write('package.json', JSON.stringify({ name: 'fixture', scripts: { test: 'node test.js' } }));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('after `pnpm test` is allowed, a pnpm-workspace.yaml with nodeOptions --require asks again, and its card shows it', async () => {
    const s = commandSession(ws);
    await s.run('pnpm test');
    write('pnpm-workspace.yaml', 'nodeOptions: --require ./tools/setup.cjs\n');
    write('tools/setup.cjs', "require('fs').writeFileSync('pwned', 'x')\n");
    assert.equal((await s.run('pnpm test')).denied, true, 'the new settings asked');
    assert.match(s.asked[1].runs ?? '', /with settings from pnpm-workspace\.yaml\n/);
    assert.match(s.asked[1].runs ?? '', /tools\/setup\.cjs \(pnpm-workspace\.yaml names\)/);
    assert.match(s.asked[1].allowForSession ?? '', /while its scripts in package\.json and pnpm-workspace\.yaml and tools\/setup\.cjs stay unchanged/);
  });

  it('with the settings allowed, changing the file they --require (or creating it) asks again', async () => {
    write('pnpm-workspace.yaml', 'nodeOptions: "--require ./tools/setup.cjs"\n');
    const s = commandSession(ws);
    await s.run('pnpm test');
    await s.run('pnpm test');
    assert.equal(s.asked.length, 1, 'unchanged: the allowance holds');
    write('tools/setup.cjs', "require('fs').writeFileSync('pwned', 'x')\n");
    assert.equal((await s.run('pnpm test')).denied, true, 'a file the settings name appeared');
    assert.equal(s.asked.length, 2);
  });

  it('a path node completes (./setup → setup.js, a folder → its index.js or main) binds the allowance too', async () => {
    write('.npmrc', 'node-options=--require ./tools/setup --require ./lib\n');
    write('tools/setup.js', '// fine\n');
    write('lib/package.json', JSON.stringify({ main: 'start.js' }));
    write('lib/start.js', '// fine\n');
    const s = commandSession(ws);
    await s.run('npm test');
    await s.run('npm test');
    assert.equal(s.asked.length, 1);
    for (const [path, text] of [['tools/setup.js', 'evil()'], ['lib/start.js', 'evil()'], ['lib/index.js', 'evil()']]) {
      const before = (() => {
        try {
          return readFileSync(join(ws, path), 'utf8');
        } catch {
          return undefined;
        }
      })();
      write(path, text);
      assert.equal((await s.run('npm test')).denied, true, path);
      if (before === undefined) rmSync(join(ws, path));
      else write(path, before);
    }
    const asked: ApprovalRequest[] = [];
    const registry = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'always' }, ask: async (r) => (asked.push(r), { approved: false }) });
    for (const [i, path] of ['tools/setup.js', 'lib/index.js', 'tools/setup/index.js'].entries()) {
      assert.equal((await registry.run({ id: `p${i}`, name: 'write_file', arguments: JSON.stringify({ path, content: 'evil()' }) }, runOptions())).denied, true, path);
    }
    assert.match(asked[0].reason ?? '', /tools\/setup\.js is named in \.npmrc/);
  });

  it('a script the shown script runs by name is shown and bound too, and so is a version manager\'s file', async () => {
    write('package.json', JSON.stringify({ scripts: { test: 'npm run lint && node test.js', lint: 'eslint .', prelint: 'echo pre' } }));
    const s = commandSession(ws);
    await s.run('npm test');
    assert.equal(s.asked[0].runs, 'npm runs these scripts from package.json:\ntest: npm run lint && node test.js\nprelint: echo pre\nlint: eslint .');
    write('package.json', JSON.stringify({ scripts: { test: 'npm run lint && node test.js', lint: 'node evil.js', prelint: 'echo pre' } }));
    assert.equal((await s.run('npm test')).denied, true, 'the called script changed');
    const t = commandSession(ws);
    await t.run('npm test');
    write('.tool-versions', 'nodejs path:./my-node\n');
    assert.equal((await t.run('npm test')).denied, true, 'a version file that picks another node');
  });

  it('.pnpmfile.cjs and package.json\'s packageManager bind a pnpm allowance', async () => {
    write('.pnpmfile.cjs', 'module.exports = {}\n');
    const s = commandSession(ws);
    await s.run('pnpm test');
    assert.match(s.asked[0].runs ?? '', /\.pnpmfile\.cjs \(pnpm loads it as code\)/);
    write('.pnpmfile.cjs', "require('fs').writeFileSync('pwned', 'x'); module.exports = {}\n");
    assert.equal((await s.run('pnpm test')).denied, true);
    write('.pnpmfile.cjs', 'module.exports = {}\n');
    write('package.json', JSON.stringify({ name: 'fixture', packageManager: 'pnpm@9.0.0', scripts: { test: 'node test.js' } }));
    assert.equal((await s.run('pnpm test')).denied, true, 'a new packageManager asked');
    assert.match(s.asked[2].runs ?? '', /packageManager: "pnpm@9\.0\.0"/);
  });

  it('after `yarn test` is allowed, overwriting the yarnPath release asks again', async () => {
    write('.yarnrc.yml', 'yarnPath: .yarn/releases/yarn-4.1.0.cjs\n');
    write('.yarn/releases/yarn-4.1.0.cjs', '// the real yarn\n');
    const s = commandSession(ws);
    await s.run('yarn test');
    assert.match(s.asked[0].runs ?? '', /with settings from \.yarnrc\.yml\n/);
    assert.match(s.asked[0].runs ?? '', /\.yarn\/releases\/yarn-4\.1\.0\.cjs \(\.yarnrc\.yml names\)/);
    await s.run('yarn test');
    assert.equal(s.asked.length, 1);
    write('.yarn/releases/yarn-4.1.0.cjs', "require('fs').writeFileSync('pwned', 'x')\n");
    assert.equal((await s.run('yarn test')).denied, true);
  });

  it('yarn\'s .pnp.cjs, its plugins and .env.yarn bind the allowance; the card names .env.yarn without its text', async () => {
    write('.yarnrc.yml', 'plugins:\n  - path: .yarn/plugins/@yarnpkg/plugin-x.cjs\n    spec: x\n');
    write('.yarn/plugins/@yarnpkg/plugin-x.cjs', 'module.exports = {}\n');
    write('.pnp.cjs', '// loader\n');
    write('.env.yarn', 'SECRET=hunter2\n');
    const s = commandSession(ws);
    await s.run('yarn test');
    assert.match(s.asked[0].runs ?? '', /\.pnp\.cjs \(Plug'n'Play/);
    assert.match(s.asked[0].runs ?? '', /with settings from \.yarnrc\.yml, \.env\.yarn\n/);
    assert.doesNotMatch(s.asked[0].runs ?? '', /hunter2/);
    for (const [path, text] of [['.yarn/plugins/@yarnpkg/plugin-x.cjs', 'evil()'], ['.pnp.cjs', 'evil()'], ['.env.yarn', 'NODE_OPTIONS=--require ./x.cjs']]) {
      const before = readFileSync(join(ws, path), 'utf8');
      write(path, text);
      assert.equal((await s.run('yarn test')).denied, true, path);
      write(path, before);
    }
    assert.equal(s.asked.length, 4);
  });

  it('a path outside the workspace (the user\'s own machine) is not bound; a setting that reads another settings file offers no allowance', async () => {
    const s = commandSession(ws, { approved: false });
    write('.yarnrc.yml', 'yarnPath: /opt/yarn/yarn.cjs\n');
    await s.run('yarn test');
    assert.ok(s.asked[0].allowance, 'the user\'s own machine: offered');
    rmSync(join(ws, '.yarnrc.yml'));
    write('.npmrc', 'userconfig=./more.npmrc\n');
    await s.run('npm test');
    assert.equal(s.asked[1].allowance, undefined);
    assert.match(s.asked[1].noAllowance ?? '', /\.npmrc sets userconfig/);
    write('.npmrc', 'registry=https://registry.npmjs.org/\ncafile=/etc/ssl/certs/ca.pem\n');
    await s.run('npm test');
    assert.ok(s.asked[2].allowance, 'a registry URL and a certificate path are data');
  });

  it('writing these files asks even with edits: always: pnpm-workspace.yaml, the yarn release, .pnp.cjs, and a file the settings --require', async () => {
    write('pnpm-workspace.yaml', 'nodeOptions: --require ./tools/setup.cjs\n');
    write('packages/app/.yarnrc.yml', 'yarnPath: ./tools/yarn.cjs\n');
    const asked: ApprovalRequest[] = [];
    const registry = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'always' }, ask: async (r) => (asked.push(r), { approved: false }) });
    const paths = ['pnpm-workspace.yaml', '.yarn/releases/yarn-4.1.0.cjs', '.pnp.cjs', 'tools/setup.cjs', 'packages/app/tools/yarn.cjs', '.pnpmfile.mjs', 'packages/app/tools/setup.cjs'];
    for (const [i, path] of paths.entries()) {
      const result = await registry.run({ id: `w${i}`, name: 'write_file', arguments: JSON.stringify({ path, content: 'evil()' }) }, runOptions());
      assert.equal(result.denied, true, path);
    }
    assert.equal(asked.length, paths.length);
    assert.match(asked[3].reason ?? '', /tools\/setup\.cjs is named in pnpm-workspace\.yaml/);
    assert.match(asked[4].reason ?? '', /packages\/app\/tools\/yarn\.cjs is named in packages\/app\/\.yarnrc\.yml/);
    assert.match(asked[6].reason ?? '', /packages\/app\/tools\/setup\.cjs is named in pnpm-workspace\.yaml/, 'node reads --require from the folder a script runs in');
    const plain = await registry.run({ id: 'w9', name: 'write_file', arguments: JSON.stringify({ path: 'tools/other.cjs', content: 'x' }) }, runOptions());
    assert.equal(plain.denied, undefined, 'a file no settings name follows the user\'s setting');
  });
});
