import { isIPv4, isIPv6 } from 'net';

/**
 * Why an IP address is not one fetch_url reaches unasked: loopback, private, link-local,
 * unique-local, carrier-grade NAT, multicast, unspecified and the other special-purpose ranges
 * (IANA's registries), for IPv4 and IPv6; an IPv6 address that carries an IPv4 one (mapped,
 * compatible, NAT64, 6to4) is judged by the IPv4 address inside. Undefined for a public address.
 * Anything that does not parse as an address is refused too.
 */
export function localRange(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return ipv4Range(ipv4Octets(bare));
  if (isIPv6(bare)) return ipv6Range(ipv6Groups(bare));
  return 'not an IP address';
}

function ipv4Octets(text: string): number[] {
  return text.split('.').map(Number);
}

function ipv4Range([a, b, c]: number[]): string | undefined {
  if (a === 0) return 'an unspecified ("this network") address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address';
  if (a === 127) return 'a loopback address';
  if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT address';
  if (a === 169 && b === 254) return 'a link-local address';
  if (a === 192 && b === 0 && c === 0) return 'an IETF protocol address';
  if ((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return 'a documentation address';
  if (a === 198 && (b === 18 || b === 19)) return 'a benchmarking address';
  if (a >= 224 && a <= 239) return 'a multicast address';
  if (a >= 240) return 'a reserved or broadcast address';
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part makes the last two). */
function ipv6Groups(text: string): number[] {
  let body = text.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const [a, b, c, d] = ipv4Octets(dotted[1]);
    tail.push((a << 8) | b, (c << 8) | d);
    body = body.slice(0, -dotted[1].length);
    if (body.endsWith(':') && !body.endsWith('::')) body = body.slice(0, -1);
  }
  const [left, right] = body.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').filter(Boolean).map((g) => parseInt(g, 16)) : []);
  const head = parse(left);
  const rest = [...parse(right), ...tail];
  const fill = right === undefined ? [] : new Array(8 - head.length - rest.length).fill(0);
  return [...head, ...fill, ...rest];
}

function ipv6Range(g: number[]): string | undefined {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  if (zeros(0, 8)) return 'an unspecified address';
  if (zeros(0, 7) && g[7] === 1) return 'a loopback address';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64): the IPv4 address decides.
  if ((zeros(0, 5) && g[5] === 0xffff) || zeros(0, 6) || (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6))) {
    const inner = ipv4Range(embedded(g[6], g[7]));
    return inner ? `${inner} (inside an IPv6 address)` : undefined;
  }
  if (g[0] === 0x2002) {
    const inner = ipv4Range(embedded(g[1], g[2]));
    return inner ? `${inner} (inside a 6to4 address)` : undefined;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'a local-use NAT64 address';
  if (g[0] === 0x2001 && g[1] === 0) return 'a Teredo address (it tunnels to an address it hides)';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'a documentation address';
  if (g[0] === 0x100 && zeros(1, 4)) return 'a discard address';
  if ((g[0] & 0xfe00) === 0xfc00) return 'a unique-local address';
  if ((g[0] & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g[0] & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g[0] & 0xff00) === 0xff00) return 'a multicast address';
  return undefined;
}
