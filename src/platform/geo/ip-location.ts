// Where an IP address is, for the sign-in logs: this machine (loopback), a private network
// (RFC 1918, carrier-grade NAT 100.64/10, link-local, IPv6 unique-local and link-local), or a
// public address with its country (ISO 3166-1 alpha-2) and city from the offline GeoLite-derived
// data that the fast-geoip package ships (no download at run time; docs/OPERATIONS.md). The data
// answers IPv4 only: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is looked up as its IPv4
// address, any other IPv6 address, a reserved one (documentation, multicast...) and one the data
// does not place are `unknown`. A lookup never throws and never holds a sign-in up for long: a
// failure, a slow disk or too many lookups at once answer `unknown`.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export const LOCATION_KINDS = ['loopback', 'private', 'public', 'unknown'] as const;
export type LocationKind = (typeof LOCATION_KINDS)[number];

/** `country` and `city` are empty unless `kind` is `public`; `city` is often empty then too (the data knows only the country of many addresses). */
export interface IpLocation {
  kind: LocationKind;
  country: string;
  city: string;
}

/** The longest city name kept (the login log's column). */
export const CITY_MAX = 128;

/**
 * A lookup reads three small files and one record (about 1 ms from the page cache), beside the
 * password check, on the thread pool that argon2 shares: a burst of sign-ins can queue it behind
 * their hashes. Past this the address is recorded as unknown rather than the sign-in kept waiting.
 */
const LOOKUP_LIMIT_MS = 250;
/**
 * Lookups running at once; more answer unknown at once. Each holds a file open while it reads,
 * and the package throws from a file-system callback (out of reach of any catch) when it cannot
 * open one, so a burst of sign-ins must not run the process out of file descriptors.
 */
const MAX_LOOKUPS = 32;

const UNKNOWN: IpLocation = { kind: 'unknown', country: '', city: '' };

function blockList(v4: [string, number][], v6: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

const LOOPBACK = blockList([['127.0.0.0', 8]], [['::1', 128]]);
const PRIVATE = blockList(
  [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10], ['169.254.0.0', 16]],
  [['fc00::', 7], ['fe80::', 10]],
);
/** IPv4 blocks that are neither private nor anyone's public address (the data would still place some of them somewhere). */
const RESERVED_V4 = blockList(
  [['0.0.0.0', 8], ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]],
  [],
);

/** `::ffff:a.b.c.d` (in either notation) as `a.b.c.d`; any other IPv6 address as it is, lower-case and compressed. */
function unmapped(ipv6: string): { family: 'ipv4' | 'ipv6'; address: string } {
  // The WHATWG URL parser writes IPv6 canonically, an embedded IPv4 address as two hex groups.
  const canonical = new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return { family: 'ipv6', address: canonical };
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return { family: 'ipv4', address: [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.') };
}

/** What an address is without the database: the kind, or the IPv4 address to look up. */
export function classifyIp(ip: string): { kind: Exclude<LocationKind, 'public'> } | { kind: 'lookup'; ipv4: string } {
  const text = ip.trim();
  let family: 'ipv4' | 'ipv6';
  let address: string;
  if (isIPv4(text)) {
    family = 'ipv4';
    address = text;
  } else {
    // A zone (`fe80::1%eth0`) names an interface, not a place.
    const bare = text.split('%')[0]!;
    if (!isIPv6(bare)) return { kind: 'unknown' };
    ({ family, address } = unmapped(bare));
  }
  if (LOOPBACK.check(address, family)) return { kind: 'loopback' };
  if (PRIVATE.check(address, family)) return { kind: 'private' };
  if (family === 'ipv6' || RESERVED_V4.check(address, 'ipv4')) return { kind: 'unknown' };
  return { kind: 'lookup', ipv4: address };
}

let running = 0;

async function lookUp(ipv4: string): Promise<IpLocation> {
  if (running >= MAX_LOOKUPS) return UNKNOWN;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Imported on the first sign-in: an idle server does without it.
    const { default: geoip } = await import('fast-geoip');
    running += 1;
    const answer = geoip.lookup(ipv4).finally(() => {
      running -= 1;
    });
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(resolve, LOOKUP_LIMIT_MS, null);
    });
    const found = await Promise.race([answer, late]);
    if (!found || !/^[A-Z]{2}$/.test(found.country)) return UNKNOWN;
    return { kind: 'public', country: found.country, city: (found.city ?? '').slice(0, CITY_MAX) };
  } catch {
    return UNKNOWN;
  } finally {
    clearTimeout(timer);
  }
}

/** Where `ip` is (the client address as the request gives it); never throws. */
export async function locateIp(ip: string): Promise<IpLocation> {
  try {
    const where = classifyIp(ip);
    return where.kind === 'lookup' ? await lookUp(where.ipv4) : { kind: where.kind, country: '', city: '' };
  } catch {
    return UNKNOWN;
  }
}
