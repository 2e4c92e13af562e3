import { readdirSync } from 'fs';

/**
 * This process's open descriptors above stderr (Linux: /proc/self/fd; empty elsewhere). A child
 * inherits those opened without close-on-exec (as a parent process may have left them), and
 * bubblewrap passes every inherited descriptor into the sandbox, where a descriptor opened outside
 * reaches its file or folder whatever the sandbox's mounts say. Telling which ones lack
 * close-on-exec takes a read of /proc/self/fdinfo per descriptor (hundreds in an editor's process);
 * covering all of them takes one listing.
 */
export function openDescriptors(): number[] {
  try {
    return readdirSync('/proc/self/fd')
      .map(Number)
      .filter((fd) => Number.isInteger(fd) && fd > 2);
  } catch {
    return [];
  }
}

/**
 * The `stdio` entries that give a child /dev/null (`nullFd`) in place of each of `open`: Node sets
 * up the child's descriptors from this list before it starts the program, so nothing the parent
 * holds reaches it (a descriptor that would have closed on exec becomes an open /dev/null).
 */
export function stdioCovering(open: readonly number[], nullFd: number): Array<'ignore' | 'pipe' | number> {
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
  const covered = new Set(open);
  const top = Math.max(2, ...open);
  for (let fd = 3; fd <= top; fd++) stdio.push(covered.has(fd) ? nullFd : 'ignore');
  return stdio;
}
