// Which addresses an outgoing request to a URL a caller chose may reach: public unicast ones only.
// Everything else — loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT
// (100.64/10), link-local (169.254/16, fe80::/10), multicast, broadcast, unspecified (0.0.0.0/8,
// ::), reserved and documentation ranges, and the IPv6 forms that embed an IPv4 address (IPv4-mapped
// ::ffff:0:0/96 is judged by the address it embeds; NAT64, 6to4 and Teredo are refused outright) —
// would let a caller probe or reach this machine and its private network (server-side request
// forgery). The ranges are ipaddr.js's; an address qualifies only when it is plain `unicast`, so a
// range the library learns to name is refused, not let through.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Whether `address` (an IPv4 or IPv6 literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  // The deprecated IPv4-compatible form (::a.b.c.d, RFC 4291 §2.5.5.1), which ipaddr.js calls
  // unicast, reaches the IPv4 address it carries on a host with an automatic tunnel.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

/**
 * The addresses a caller's URL may reach: public unicast ones, or any address at all where the
 * operator lets loopback and private addresses through (local development).
 */
export function allowedAddresses(allowPrivate: boolean): (address: string) => boolean {
  return allowPrivate ? (address: string) => ipaddr.isValid(address) : isPublicAddress;
}

/** A refusal to reach an address: the request fails before any socket is opened. */
export class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED_SPECIAL_USE';
  constructor(host: string) {
    super(`${host} is not a public address`);
    this.name = 'AddressRefused';
  }
}

/**
 * A dns.lookup for net.connect that resolves the host and answers only when every address it
 * resolves to is allowed: the connection then goes to an address checked here, never to one the
 * name resolves to a moment later (no second resolution between check and connect).
 */
export function checkedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || addresses.some((a) => !allowed(a.address))) {
        return callback(new AddressRefused(hostname) as NodeJS.ErrnoException, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
