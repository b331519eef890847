// Owns the outbound-destination check (SSRF guard) shared by the built-in http tool and outbound webhooks.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Destinations an agent-chosen URL must not reach: loopback, RFC 1918, link-local (cloud metadata lives at
 * 169.254.169.254), carrier-grade NAT (some clouds serve metadata from 100.64/10), "this network" (0/8:
 * 0.0.0.0 reaches the local host on Linux), IPv6 loopback/unspecified, unique-local and link-local.
 * net.BlockList also matches IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`) against the IPv4 subnets.
 */
const PRIVATE_RANGES: ReadonlyArray<readonly [network: string, prefix: number, family: 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['::', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
];

const PRIVATE = new BlockList();
for (const [network, prefix, family] of PRIVATE_RANGES) PRIVATE.addSubnet(network, prefix, family);

/** Error code carried by a connection the guard refused (visible on the socket error). */
export const DESTINATION_REFUSED = 'EDESTINATIONREFUSED';

export class DestinationRefusedError extends Error {
  readonly code = DESTINATION_REFUSED;
  constructor(readonly host: string) {
    super(`Destination "${host}" is a private or loopback address; private networks are not allowed.`);
    this.name = 'DestinationRefusedError';
  }
}

/** `[::1]` (URL hostname form) -> `::1`. */
function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** True for an IP literal inside a private range; false for public literals and for names (not resolved). */
export function isPrivateIp(address: string): boolean {
  const ip = bareHost(address);
  const family = isIP(ip);
  if (family === 0) return false;
  return PRIVATE.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

export type ResolveAll = (host: string) => Promise<readonly string[]>;

const systemResolveAll: ResolveAll = async (host) => (await dnsLookupAsync(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * True when `host` (an IP literal or a name) is or resolves to any private address. A name with one public
 * and one private address counts as private: the connection could land on either. Resolution failures reject.
 */
export async function isPrivateAddress(host: string, resolveAll: ResolveAll = systemResolveAll): Promise<boolean> {
  const bare = bareHost(host);
  if (isIP(bare) !== 0) return isPrivateIp(bare);
  const addresses = await resolveAll(bare);
  return addresses.some(isPrivateIp);
}

/**
 * A `lookup` for http.request/net.connect that refuses private answers. Checking inside the connection's own
 * lookup (instead of resolving once before connecting) closes the DNS-rebinding gap: the address checked is
 * the address dialled. IP literals never reach a lookup, so callers check them with `isPrivateIp` first.
 */
export function createGuardedLookup(allowPrivateNetworks: boolean): LookupFunction | undefined {
  if (allowPrivateNetworks) return undefined;
  return ((hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    const all: LookupAllOptions = { ...options, all: true };
    dnsLookup(hostname, all, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      if (addresses.length === 0 || addresses.some((a) => isPrivateIp(a.address))) {
        return callback(new DestinationRefusedError(hostname), options.all ? [] : '');
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
