import { accessSync, constants } from 'fs';
import { delimiter, join } from 'path';
import { runToEnd } from '../spawner/runToEnd';

export type SandboxTool = { kind: 'bubblewrap'; path: string } | { kind: 'seatbelt'; path: string };

export type Availability = { available: true; tool: SandboxTool } | { available: false; reason: string };

/** Where Debian, Fedora, Arch and their kin install bubblewrap, when PATH does not name it. */
const BWRAP_PLACES = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

export const INSTALL_BUBBLEWRAP = 'install the bubblewrap package (Debian and Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap)';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** bubblewrap on PATH or in its usual places. */
export function findBubblewrap(path = process.env.PATH ?? ''): string | undefined {
  const candidates = [...path.split(delimiter).filter(Boolean).map((dir) => join(dir, 'bwrap')), ...BWRAP_PLACES];
  return candidates.find(executable);
}

/** Runs the tool once with a sandbox like the commands' and says why it failed, if it did. */
async function tryOnce(file: string, args: string[]): Promise<string | undefined> {
  const ran = await runToEnd({ file, args, cwd: process.cwd(), env: process.env }, { timeoutMs: 10_000 });
  if (ran.end.code === 0) return undefined;
  const said = ran.stderr.trim().split('\n')[0];
  return said || ran.end.error || (ran.timedOut ? 'it did not finish within 10 s' : `it ended with ${ran.end.signal ?? `exit code ${ran.end.code}`}`);
}

const probes = new Map<string, Promise<Availability>>();

/**
 * Whether commands can be sandboxed on this machine, checked once per tool per process by running
 * one: bubblewrap needs namespaces the kernel or a container may refuse (no user namespaces, a
 * seccomp profile), which only trying shows.
 */
export function sandboxAvailability(platform: NodeJS.Platform, bubblewrap?: string): Promise<Availability> {
  if (platform === 'darwin') {
    if (!executable(SANDBOX_EXEC)) return Promise.resolve({ available: false, reason: `${SANDBOX_EXEC} is missing on this Mac` });
    return probe(SANDBOX_EXEC, ['-p', '(version 1)(allow default)', '/usr/bin/true'], { kind: 'seatbelt', path: SANDBOX_EXEC }, 'sandbox-exec cannot start a sandbox here');
  }
  if (platform === 'linux') {
    const path = bubblewrap ?? findBubblewrap();
    if (!path || !executable(path)) return Promise.resolve({ available: false, reason: `bubblewrap (bwrap) is not installed: ${INSTALL_BUBBLEWRAP}` });
    const args = ['--die-with-parent', '--new-session', '--unshare-all', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run', '/bin/sh', '-c', 'exit 0'];
    return probe(path, args, { kind: 'bubblewrap', path }, 'bubblewrap cannot create a sandbox here (a container without user namespaces?)');
  }
  if (platform === 'win32') return Promise.resolve({ available: false, reason: 'Windows has no sandbox Tally can run commands in' });
  return Promise.resolve({ available: false, reason: `Tally has no sandbox for commands on ${platform}` });
}

function probe(file: string, args: string[], tool: SandboxTool, failure: string): Promise<Availability> {
  const key = `${file}\0${args.join('\0')}`;
  let found = probes.get(key);
  if (!found) {
    found = tryOnce(file, args).then((error): Availability => (error ? { available: false, reason: `${failure}: ${error}` } : { available: true, tool }));
    probes.set(key, found);
  }
  return found;
}
