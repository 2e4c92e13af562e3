import type { SandboxRefusal } from '../../core/ports/workspace';

/** Errors a write the sandbox refuses shows as: read-only mounts, and the fixed paths inside the workspace. */
const WRITE_SIGNS = ['Read-only file system', 'EROFS', 'Device or resource busy', 'EBUSY'];
/** What else the sandbox refuses with EPERM: Unix sockets with the network off, changes no capability allows; macOS's sandbox refuses everything so. */
const PERMISSION_SIGNS = ['Operation not permitted', 'EPERM'];
/** Errors of a connection or a name lookup with no network (loopback included: it is the sandbox's own). */
const NETWORK_SIGNS = [
  'Network is unreachable',
  'ENETUNREACH',
  'Temporary failure in name resolution',
  'EAI_AGAIN',
  'Could not resolve host',
  'Could not resolve',
  'Name or service not known',
  'nodename nor servname provided',
  'No address associated with hostname',
  'getaddrinfo',
  'Connection refused',
  'ECONNREFUSED',
];

/**
 * Whether a failed sandboxed command's output shows the sandbox stopped it, and with which error:
 * the earliest sign in the output wins. Network signs count only while the network is off.
 */
export function sandboxRefusal(output: Uint8Array, options: { network: boolean }): SandboxRefusal | undefined {
  const bytes = Buffer.from(output.buffer, output.byteOffset, output.byteLength);
  let found: (SandboxRefusal & { at: number }) | undefined;
  const look = (signs: readonly string[], what: SandboxRefusal['what']) => {
    for (const sign of signs) {
      const at = bytes.indexOf(sign);
      if (at >= 0 && (!found || at < found.at)) found = { what, sign, at };
    }
  };
  look(WRITE_SIGNS, 'write');
  if (!options.network) look(NETWORK_SIGNS, 'network');
  look(PERMISSION_SIGNS, 'permission');
  return found && { what: found.what, sign: found.sign };
}
