import { readdirSync, readFileSync } from 'fs';

const O_CLOEXEC = 0o2000000;

/**
 * This process's open descriptors above stderr that a child would inherit (opened without
 * close-on-exec, as a parent process may have left them). bubblewrap passes every inherited
 * descriptor into the sandbox, and a descriptor opened outside reaches its file or folder whatever
 * the sandbox's mounts say. Linux only (it reads /proc/self/fdinfo); empty elsewhere.
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1');
    } catch {
      continue; // closed meanwhile (the listing's own descriptor among them)
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info);
    if (flags && (parseInt(flags[1], 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found;
}

/**
 * The `stdio` entries that give a child /dev/null (`nullFd`) in place of each inheritable
 * descriptor: Node sets up the child's descriptors from this list before it starts the program,
 * so what the parent left open never reaches it.
 */
export function stdioCovering(inheritable: readonly number[], nullFd: number): Array<'ignore' | 'pipe' | number> {
  const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe'];
  const top = Math.max(2, ...inheritable);
  for (let fd = 3; fd <= top; fd++) stdio.push(inheritable.includes(fd) ? nullFd : 'ignore');
  return stdio;
}
