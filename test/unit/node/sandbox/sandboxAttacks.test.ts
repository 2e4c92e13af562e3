/**
 * The attack list, run with real bubblewrap through the agent's own path (run_command, the
 * approvals, the Node workspace): each command here is allowed (commands run without asking), and
 * none may read a secret, write outside the workspace or reach the network.
 *
 * The files live under /var/tmp, not /tmp: the sandbox gives commands a private /tmp, so a fake home
 * under /tmp would be out of sight for that reason alone and prove nothing about hiding secrets.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'child_process';
import { createServer, type Server } from 'net';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { builtinTools } from '../../../../src/core/tools/builtin';
import { stopSpawner, useSpawner } from '../../../../src/node/spawner/processStarts';
import { bubblewrapOrSkip } from '../../../support/bubblewrap';
import { spawnerFromSource } from '../../../support/spawnerFromSource';
import { outputText, runOptions, testRegistry, testSandbox } from '../../../support/toolRegistry';

const SECRET = `SECRET-${process.pid}-${Date.now()}`;
/** A file in / that only an escape could make (these tests may run as root). */
const ROOT_MARK = `/tally-sandbox-escape-${process.pid}`;

for (const viaSpawner of [false, true])
describe(`a sandboxed, allowed command (real bubblewrap)${viaSpawner ? ', started by the spawner' : ''}`, function () {
  this.timeout(60_000);
  let root: string;
  let home: string;
  let ws: string;
  let outside: string;
  let hostTmp: string;
  let run: (command: string, cwd?: string) => Promise<string>;

  before(function () {
    bubblewrapOrSkip(this);
    if (viaSpawner) useSpawner(spawnerFromSource());
  });
  after(() => {
    if (viaSpawner) stopSpawner();
  });

  beforeEach(() => {
    root = mkdtempSync('/var/tmp/tally-sandbox-test-');
    home = join(root, 'home');
    ws = join(root, 'ws');
    outside = join(root, 'outside');
    for (const dir of [home, ws, outside, join(home, '.ssh'), join(home, '.aws'), join(home, '.config', 'gcloud'), join(home, '.docker'), join(root, 'storage')]) mkdirSync(dir, { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), `${SECRET} ssh\n`);
    writeFileSync(join(home, '.aws', 'credentials'), `${SECRET} aws\n`);
    writeFileSync(join(home, '.config', 'gcloud', 'credentials.db'), `${SECRET} gcloud\n`);
    writeFileSync(join(home, '.docker', 'config.json'), `${SECRET} docker\n`);
    writeFileSync(join(home, '.npmrc'), `//registry.npmjs.org/:_authToken=${SECRET}\n`);
    writeFileSync(join(home, '.netrc'), `machine x login y password ${SECRET}\n`);
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Someone\n');
    writeFileSync(join(home, 'private-notes'), `${SECRET} extra\n`);
    writeFileSync(join(root, 'storage', 'state.vscdb'), `${SECRET} storage\n`);
    writeFileSync(join(outside, 'existing'), 'untouched\n');
    hostTmp = mkdtempSync(join(tmpdir(), 'tally-host-tmp-'));
    const sandbox = testSandbox({ home, extraHidden: ['~/private-notes'], storage: [join(root, 'storage')] });
    const registry = testRegistry({ tools: builtinTools(), folders: [ws], policy: { commands: 'always', edits: 'ask' }, sandbox });
    let n = 0;
    run = async (command, cwd) => outputText(await registry.run({ id: `c${++n}`, name: 'run_command', arguments: JSON.stringify(cwd ? { command, cwd } : { command }) }, runOptions()));
  });

  afterEach(() => {
    rmSync(ROOT_MARK, { force: true });
    rmSync(root, { recursive: true, force: true });
    rmSync(hostTmp, { recursive: true, force: true });
  });

  it('runs in the workspace and writes there (the sandbox is not simply refusing everything)', async () => {
    const out = await run('echo made > made.txt && cat made.txt && echo temp > /tmp/t && cat /tmp/t');
    assert.match(out, /made\ntemp\n\n\[exit code 0\]$/);
    assert.equal(readFileSync(join(ws, 'made.txt'), 'utf8'), 'made\n');
  });

  it('cannot read ~/.ssh/id_ed25519 or any other secret on the list, by any path', async () => {
    const secrets = ['.ssh/id_ed25519', '.aws/credentials', '.config/gcloud/credentials.db', '.docker/config.json', '.npmrc', '.netrc', 'private-notes'].map((p) => join(home, p));
    symlinkSync(join(home, '.ssh', 'id_ed25519'), join(ws, 'key-link'));
    const out = await run(
      [
        ...secrets.map((p) => `cat '${p}'`),
        `cat /proc/self/root${home}/.ssh/id_ed25519`,
        `cat /proc/1/root${home}/.aws/credentials`,
        'cat key-link',
        `ln -s '${home}/.ssh' ssh-now && cat ssh-now/id_ed25519`,
        `ln '${home}/.ssh/id_ed25519' hard-now`,
        `cat '${join(root, 'storage', 'state.vscdb')}'`,
        `ls -a '${home}/.ssh' '${home}/.aws'`,
        'grep -r SECRET ../home ../storage',
      ].join('; '),
    );
    assert.ok(!out.includes(SECRET), `a secret leaked:\n${out}`);
    assert.match(out, /Someone|No such file|exit code/, 'the command ran');
    assert.equal((await run(`cat '${join(home, '.gitconfig')}'`)).includes('Someone'), true, 'what is not a secret stays readable');
  });

  it('cannot write outside the workspace: elsewhere, the home folder, /tmp, through a link, a hard link or ..', async () => {
    symlinkSync(outside, join(ws, 'out-link'));
    const attempts = [
      `echo x > '${outside}/f1'`,
      `echo x >> '${outside}/existing'`,
      `echo x > '${home}/.bashrc'`,
      `touch '${home}/.ssh/authorized_keys'`,
      `echo x > '${hostTmp}/f2'`,
      `mkdir -p '${hostTmp}' && echo x > '${hostTmp}/f3'`,
      'echo x > out-link/f4',
      `ln -s '${outside}' made-link && echo x > made-link/f5`,
      `ln '${outside}/existing' hard && echo x >> hard`,
      'echo x > ../outside/f6',
      `echo x > '${ws}/../outside/f7'`,
      `HOME='${home}' git config --global alias.pwn '!touch ${outside}/f8'`,
      // npm test sets npm_config_userconfig to the real user's .npmrc: aim npm at the fake home's.
      `env -u npm_config_userconfig HOME='${home}' npm config set --location=user registry http://evil.example/`,
      `mount -o remount,rw / ; touch ${ROOT_MARK}`,
    ];
    await run(attempts.join('; '));
    for (const name of ['f1', 'f4', 'f5', 'f6', 'f7', 'f8']) assert.equal(existsSync(join(outside, name)), false, `${name} was written outside`);
    assert.equal(readFileSync(join(outside, 'existing'), 'utf8'), 'untouched\n');
    assert.equal(existsSync(join(home, '.bashrc')), false);
    assert.equal(existsSync(join(home, '.ssh', 'authorized_keys')), false);
    assert.equal(readFileSync(join(home, '.gitconfig'), 'utf8'), '[user]\n\tname = Someone\n', "git's global config is unchanged");
    assert.equal(readFileSync(join(home, '.npmrc'), 'utf8').includes('evil'), false, "npm's user config is unchanged");
    assert.equal(existsSync(join(hostTmp, 'f2')) || existsSync(join(hostTmp, 'f3')), false, "the host's /tmp is not the command's");
    assert.equal(existsSync(ROOT_MARK), false, 'the root folder was written');
  });

  it("keeps git's config and hooks read-only, and the .git folder where it is", async () => {
    execFileSync('git', ['init', '-q', ws]);
    const config = readFileSync(join(ws, '.git', 'config'), 'utf8');
    const out = await run(`git config core.fsmonitor 'touch ${outside}/fsmonitor'; echo 'touch ${outside}/hook' > .git/hooks/pre-commit; mv .git .git-old; mkdir -p .vscode 2>&1; echo ok`);
    assert.equal(readFileSync(join(ws, '.git', 'config'), 'utf8'), config);
    assert.equal(existsSync(join(ws, '.git', 'hooks', 'pre-commit')), false);
    assert.equal(existsSync(join(ws, '.git-old')), false);
    assert.match(out, /Device or resource busy|Read-only file system/);
    assert.match(out, /It failed in the sandbox|ok/);
  });

  it('reaches neither 127.0.0.1 nor any address, a name server or a Unix socket when the network is off', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    // A service's socket file where the sandbox can see it (the mounts hide /tmp's and /run's).
    const socketPath = join(outside, 'service.sock');
    const local: Server = createServer((socket) => {
      connections++;
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => local.listen(socketPath, resolve));
    try {
      const node = (code: string) => `node -e ${JSON.stringify(code)}`;
      const out = await run(
        [
          node(`require('net').connect(${port}, '127.0.0.1').on('data', (d) => console.log('READ ' + d)).on('error', (e) => console.log('local: ' + e.code))`),
          node(`require('net').connect(443, '1.1.1.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log('remote: ' + e.code))`),
          node(`require('dns').lookup('example.com', (e, a) => console.log(e ? 'dns: ' + e.code : 'RESOLVED ' + a))`),
          node(`const s = require('dgram').createSocket('udp4'); s.send(Buffer.from('x'), 53, '8.8.8.8', (e) => { console.log(e ? 'udp: ' + e.code : 'SENT'); s.close(); })`),
          node(`require('net').connect(${JSON.stringify(socketPath)}).on('data', (d) => console.log('READ ' + d)).on('error', (e) => console.log('unix: ' + e.code))`),
          // The children a command starts still talk to it (socket pairs and pipes are not the network).
          node(`console.log(require('child_process').execFileSync('echo', ['child ok']).toString().trim())`),
        ].join('; '),
      );
      assert.equal(connections, 0, 'the local server saw no connection');
      assert.doesNotMatch(out, /READ|CONNECTED|RESOLVED|SENT/);
      assert.match(out, /local: ECONNREFUSED/);
      assert.match(out, /remote: ENETUNREACH/);
      assert.match(out, /dns: (EAI_AGAIN|ENOTFOUND)/);
      assert.match(out, /unix: EPERM/);
      assert.match(out, /child ok/);
    } finally {
      server.close();
      local.close();
    }
  });

  it('escapes neither through an inherited file descriptor nor a setuid program', async () => {
    // A process that holds a descriptor open without close-on-exec (as a parent may leave one): here fd 20, writable, on a file outside.
    const target = join(outside, 'through-fd');
    writeFileSync(target, 'before\n');
    const script = join(root, 'holder.ts');
    writeFileSync(
      script,
      [
        `import { NodeWorkspace } from ${JSON.stringify(join(__dirname, '../../../../src/node/tools/nodeWorkspace'))};`,
        `import { testSandbox } from ${JSON.stringify(join(__dirname, '../../../support/toolRegistry'))};`,
        ...(viaSpawner
          ? [
              `import { useSpawner } from ${JSON.stringify(join(__dirname, '../../../../src/node/spawner/processStarts'))};`,
              `import { spawnerFromSource } from ${JSON.stringify(join(__dirname, '../../../support/spawnerFromSource'))};`,
              `useSpawner(spawnerFromSource());`,
            ]
          : []),
        `const ws = new NodeWorkspace({ folders: [${JSON.stringify(ws)}], trusted: true }, testSandbox({ home: ${JSON.stringify(home)} }));`,
        `ws.exec('ls -l /proc/self/fd; node -e \\'require("fs").writeSync(20, "pwned")\\'; echo done', { cwd: ${JSON.stringify(ws)}, timeoutMs: 20000, maxOutputBytes: 65536, signal: new AbortController().signal })`,
        `  .then((r) => process.stdout.write(Buffer.from(r.output)));`,
      ].join('\n'),
    );
    // bash opens fd 20 (no close-on-exec; Node marks only its lowest inherited descriptors) and becomes the Node process that runs the command.
    const holder = `exec 20>>"$1"; exec "$2" -r "$3" "$4"`;
    const child = spawn('bash', ['-c', holder, 'bash', target, process.execPath, join(__dirname, '../../../register.cjs'), script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await new Promise((resolve) => child.on('close', resolve));
    assert.match(out, /done/, out);
    assert.equal(readFileSync(target, 'utf8'), 'before\n', `the inherited descriptor reached the file:\n${out}`);
    assert.doesNotMatch(out, new RegExp(`20 -> ${target}`));

    const status = await run('grep -E "^(NoNewPrivs|CapEff|CapBnd)" /proc/self/status; mount -t tmpfs none /mnt; su -c id nobody; umount /proc; echo end');
    assert.match(status, /NoNewPrivs:\s+1/);
    assert.match(status, /CapEff:\s+0+\n/);
    assert.match(status, /CapBnd:\s+0+\n/);
    assert.match(status, /end/);
  });

  it('the allowance attacks of the last review (git diff of outside paths, pnpm and yarn configs) read no secret and write nothing outside', async () => {
    execFileSync('git', ['init', '-q', ws]);
    const diff = await run(`git diff ${home}/.ssh/id_ed25519 /dev/null; git diff --no-index ${home}/.aws/credentials /dev/null; git diff ../home/.npmrc /dev/null`);
    assert.ok(!diff.includes(SECRET), diff);
    mkdirSync(join(ws, 'tools'));
    mkdirSync(join(ws, '.yarn', 'releases'), { recursive: true });
    writeFileSync(join(ws, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'echo tested' } }));
    writeFileSync(join(ws, 'pnpm-workspace.yaml'), 'packages: []\nnodeOptions: --require ./tools/setup.cjs\n');
    writeFileSync(join(ws, 'tools', 'setup.cjs'), payload(home, outside, 'pnpm'));
    writeFileSync(join(ws, '.yarnrc.yml'), 'yarnPath: .yarn/releases/yarn-4.0.0.cjs\n');
    writeFileSync(join(ws, '.yarn', 'releases', 'yarn-4.0.0.cjs'), payload(home, outside, 'yarn'));
    // With pnpm and yarn installed they run the payload themselves; without, it runs as they would run it.
    const pnpm = spawnOk('pnpm') ? 'pnpm test' : 'NODE_OPTIONS="--require ./tools/setup.cjs" node -e 0';
    const yarn = spawnOk('yarn') ? 'yarn test' : 'node .yarn/releases/yarn-4.0.0.cjs test';
    const out = await run(`${pnpm}; ${yarn}`);
    assert.ok(!out.includes(SECRET), out);
    assert.match(out, /pnpm read: ENOENT/);
    assert.match(out, /yarn write: EROFS/);
    assert.doesNotMatch(out, /WROTE/);
    assert.equal(existsSync(join(outside, 'pnpm')) || existsSync(join(outside, 'yarn')), false);
  });

  it('runs what LD_PRELOAD and NODE_OPTIONS load from the workspace inside the sandbox too', async function () {
    writeFileSync(join(ws, 'setup.cjs'), `try { require('fs').writeFileSync(${JSON.stringify(join(outside, 'node-options'))}, 'x') } catch (e) { console.log('setup: ' + e.code) }\ntry { console.log(require('fs').readFileSync(${JSON.stringify(join(home, '.ssh', 'id_ed25519'))}, 'utf8')) } catch (e) { console.log('setup: ' + e.code) }\n`);
    const out = await run('NODE_OPTIONS="--require ./setup.cjs" node -e "console.log(1)"');
    assert.match(out, /setup: EROFS/);
    assert.match(out, /setup: ENOENT/);
    assert.ok(!out.includes(SECRET));
    assert.equal(existsSync(join(outside, 'node-options')), false);
    let compiler: string | undefined;
    for (const cc of ['cc', 'gcc', 'clang']) if (!compiler && spawnOk(cc)) compiler = cc;
    if (!compiler) {
      console.warn('    LD_PRELOAD part skipped: no C compiler to build the library');
      return;
    }
    writeFileSync(join(ws, 'hook.c'), `#include <stdio.h>\n__attribute__((constructor)) static void hook(void) { FILE *f = fopen("${join(outside, 'ld-preload')}", "w"); printf(f ? "PRELOAD-WROTE\\n" : "preload: refused\\n"); }\n`);
    execFileSync(compiler, ['-shared', '-fPIC', '-o', join(ws, 'hook.so'), join(ws, 'hook.c')]);
    const preloaded = await run(`LD_PRELOAD=${join(ws, 'hook.so')} /bin/true; echo after`);
    assert.match(preloaded, /preload: refused/);
    assert.equal(existsSync(join(outside, 'ld-preload')), false);
  });
});

/** The payload a package manager's config makes it run: it tries to read a secret and to write outside. */
function payload(home: string, outside: string, name: string): string {
  return `const fs = require('fs');\ntry { console.log(fs.readFileSync(${JSON.stringify(join(home, '.ssh', 'id_ed25519'))}, 'utf8')) } catch (e) { console.log('${name} read: ' + e.code) }\ntry { fs.writeFileSync(${JSON.stringify(join(outside, name))}, 'x'); console.log('${name} WROTE') } catch (e) { console.log('${name} write: ' + e.code) }\n`;
}

function spawnOk(program: string): boolean {
  try {
    execFileSync(program, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
