import type { SandboxPolicy } from './sandboxPolicy';

export interface BubblewrapRun {
  command: string;
  cwd: string;
  /** An empty read-only file laid over each hidden file (a hidden folder gets an empty one). */
  emptyFile: string;
  /** With the network on: the folder under /run that /etc/resolv.conf leads to, kept so names resolve. */
  resolverDir?: string;
  /** The descriptor bubblewrap reads the seccomp program from (with the network off: no Unix sockets). */
  seccompFd?: number;
}

/**
 * bubblewrap's arguments for one command. Order matters: later mounts cover earlier ones, so the
 * whole file system goes in read-only first, then fresh /dev, /proc, /tmp and /run (the private
 * temporary folder; /run's service sockets gone), then the workspace folders writable, then what
 * stays read-only inside them, then the hidden paths over everything.
 *
 * Every namespace is new (no network unless allowed, no view of other processes), every
 * capability dropped (so a setuid program or root gains nothing: bubblewrap also sets
 * no_new_privs), and the sandbox dies with Tally and ends with its command (the pid namespace's
 * first process).
 */
export function bubblewrapArgs(policy: SandboxPolicy, run: BubblewrapRun): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', ...(policy.network ? ['--share-net'] : []), '--cap-drop', 'ALL'];
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run');
  if (policy.network && run.resolverDir) args.push('--ro-bind', run.resolverDir, run.resolverDir);
  for (const folder of policy.writable) args.push('--bind', folder, folder);
  for (const git of policy.gitDirs) args.push('--bind', git, git);
  for (const path of policy.readOnly) if (path.kind !== 'missing') args.push('--ro-bind', path.path, path.path);
  for (const path of policy.hidden) {
    if (path.kind === 'dir') args.push('--tmpfs', path.path, '--remount-ro', path.path);
    else if (path.kind === 'file') args.push('--ro-bind', run.emptyFile, path.path);
  }
  if (run.seccompFd !== undefined) args.push('--seccomp', String(run.seccompFd));
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', run.cwd, '--', '/bin/sh', '-c', run.command);
  return args;
}
