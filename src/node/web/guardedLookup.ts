import { promises as dns } from 'dns';
import type { LookupFunction } from 'net';
import { WebFetchError } from '../../core/ports/webAccess';
import { localRange } from './addressRanges';

/** Resolves a host name to its addresses (the system's resolver by default; tests give their own). */
export type ResolveHost = (host: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export const systemResolver: ResolveHost = (host) => dns.lookup(host, { all: true, verbatim: true });

/**
 * The `lookup` a connection uses: the name is resolved when the socket connects, and refused when
 * any of its addresses is local (loopback, private, link-local…) unless the user allowed this
 * host. Checking here, on the addresses the socket will use, leaves no gap between the check and
 * the connection for a name whose answer changes (DNS rebinding).
 */
export function guardedLookup(resolveHost: ResolveHost, allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const checked = async () => {
      const addresses = await resolveHost(hostname);
      const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
      const usable = addresses.filter((a) => family === 0 || a.family === family);
      if (!usable.length) throw new WebFetchError(`${hostname} has no address`, 'network', { host: hostname });
      if (!allowPrivate) {
        for (const { address } of usable) {
          const range = localRange(address);
          if (range) throw new WebFetchError(`${hostname} resolves to ${address}, ${range}; it is fetched only if the user allows this host`, 'private-address', { host: hostname, address, range });
        }
      }
      return usable;
    };
    checked().then(
      (usable) => {
        if (options.all) callback(null, usable.map(({ address, family }) => ({ address, family })));
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: unknown) => callback(error),
    );
  }) as unknown as LookupFunction;
}
