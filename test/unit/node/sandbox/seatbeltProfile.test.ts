/**
 * The macOS sandbox is generated from the same policy as bubblewrap's. It cannot run here, so its
 * text is checked: what it allows and denies, in the order that makes the last match right, and
 * that no path ever becomes profile text.
 */
import assert from 'node:assert/strict';
import { seatbeltArgs } from '../../../../src/node/sandbox/seatbeltProfile';
import type { SandboxPolicy } from '../../../../src/node/sandbox/sandboxPolicy';

const POLICY: SandboxPolicy = {
  writable: ['/Users/me/project', '/Users/me/other'],
  gitDirs: ['/Users/me/project/.git'],
  readOnly: [
    { path: '/Users/me/project/.git/config', kind: 'file' },
    { path: '/Users/me/project/.vscode', kind: 'missing' },
  ],
  hidden: [
    { path: '/Users/me/.ssh', kind: 'dir' },
    { path: '/Users/me/.npmrc', kind: 'missing' },
  ],
  network: false,
};

/** The profile's lines and the parameters, by name. */
function parsed(args: string[]) {
  assert.equal(args[0], '-p');
  const params = new Map<string, string>();
  let i = 2;
  for (; args[i] === '-D'; i += 2) {
    const [name, ...value] = args[i + 1].split('=');
    params.set(name, value.join('='));
  }
  return { lines: args[1].split('\n'), params, rest: args.slice(i) };
}

/** The paths a rule names, its parameters read back. */
function pathsOf(line: string, params: Map<string, string>): string[] {
  return [...line.matchAll(/\(param "([A-Z_0-9]+)"\)/g)].map((m) => params.get(m[1])!);
}

describe('the macOS sandbox profile (sandbox-exec)', () => {
  it('allows writes only in the workspace folders, the private temporary folder and the terminal devices; hides the secrets; no network', () => {
    const { lines, params, rest } = parsed(seatbeltArgs(POLICY, { command: 'npm test', tmp: '/private/var/folders/x/T/tally-sandbox-1' }));
    assert.deepEqual(rest, ['/bin/sh', '-c', 'npm test']);
    assert.deepEqual(lines.slice(0, 3), ['(version 1)', '(allow default)', '(deny file-write*)']);
    const allowWrites = lines.find((l) => l.startsWith('(allow file-write*'))!;
    assert.deepEqual(pathsOf(allowWrites, params), ['/Users/me/project', '/Users/me/other', '/private/var/folders/x/T/tally-sandbox-1']);
    assert.match(allowWrites, /\(literal "\/dev\/null"\)/);
    assert.match(allowWrites, /\(regex #"\^\/dev\/tty"\)/);
    const readOnly = lines.find((l) => l.startsWith('(deny file-write*') && l !== '(deny file-write*)')!;
    assert.deepEqual(pathsOf(readOnly, params), ['/Users/me/project/.git/config', '/Users/me/project/.vscode'], 'missing paths too: macOS can deny a path before it exists');
    const hidden = lines.find((l) => l.startsWith('(deny file-read* file-write*'))!;
    assert.deepEqual(pathsOf(hidden, params), ['/Users/me/.ssh', '/Users/me/.npmrc']);
    // The last matching rule wins: the read-only parts after the writable folders, the secrets after everything.
    assert.ok(lines.indexOf(allowWrites) < lines.indexOf(readOnly) && lines.indexOf(readOnly) < lines.indexOf(hidden));
    assert.equal(lines.at(-1), '(deny network*)');
  });

  it('with the network allowed for the session, denies no network', () => {
    const { lines } = parsed(seatbeltArgs({ ...POLICY, network: true }, { command: 'npm install', tmp: '/t' }));
    assert.ok(!lines.some((l) => l.includes('network')));
  });

  it('never writes a path into the profile: a folder named like a rule stays a parameter', () => {
    const evil = '/Users/me/x") (allow file-write* (subpath "/';
    const args = seatbeltArgs({ ...POLICY, writable: [evil], hidden: [{ path: '/Users/me/"quoted"\\', kind: 'dir' }] }, { command: 'true', tmp: '/t' });
    const { lines, params } = parsed(args);
    assert.ok(!args[1].includes('/Users/me'), 'no path in the profile text');
    assert.ok(lines.every((l) => /^\((version 1|allow default|deny file-write\*|allow file-write\*|deny file-read\* file-write\*|deny network\*)[ )]/.test(l)), lines.join('\n'));
    assert.ok([...params.values()].includes(evil));
  });
});
