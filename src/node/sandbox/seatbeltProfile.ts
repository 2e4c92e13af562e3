import type { SandboxPolicy } from './sandboxPolicy';

/** Device files any program writes (terminal, null, descriptors); everything else outside the workspace is read-only. */
const WRITABLE_DEVICES = ['(literal "/dev/null")', '(literal "/dev/zero")', '(literal "/dev/stdout")', '(literal "/dev/stderr")', '(literal "/dev/dtracehelper")', '(regex #"^/dev/tty")', '(regex #"^/dev/fd/")'];

export interface SeatbeltRun {
  command: string;
  /** The private temporary folder (TMPDIR inside), made for this command. */
  tmp: string;
}

/**
 * The macOS sandbox for one command, as `sandbox-exec` arguments: the profile from the same
 * policy as bubblewrap's, with every path passed as a parameter (`-D NAME=path`, read by
 * `(param "NAME")`), so no path is ever written into the profile's text. The last matching rule
 * wins: writes are denied, then allowed in the workspace folders and the private temporary folder,
 * then denied again for what stays read-only inside; reading and writing the hidden paths is
 * denied last of all; the network (Unix sockets and name lookups included) is denied unless allowed.
 */
export function seatbeltArgs(policy: SandboxPolicy, run: SeatbeltRun): string[] {
  const params: Array<[string, string]> = [];
  const param = (prefix: string, path: string) => {
    const name = `${prefix}_${params.filter(([n]) => n.startsWith(`${prefix}_`)).length}`;
    params.push([name, path]);
    return `(subpath (param "${name}"))`;
  };
  const writable = [...policy.writable.map((f) => param('WRITABLE', f)), param('TMP', run.tmp)];
  const readOnly = policy.readOnly.map((p) => param('READ_ONLY', p.path));
  const hidden = policy.hidden.map((p) => param('HIDDEN', p.path));
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)', `(allow file-write* ${[...writable, ...WRITABLE_DEVICES].join(' ')})`];
  if (readOnly.length) lines.push(`(deny file-write* ${readOnly.join(' ')})`);
  if (hidden.length) lines.push(`(deny file-read* file-write* ${hidden.join(' ')})`);
  if (!policy.network) lines.push('(deny network*)');
  const profile = lines.join('\n');
  return ['-p', profile, ...params.flatMap(([name, value]) => ['-D', `${name}=${value}`]), '/bin/sh', '-c', run.command];
}
