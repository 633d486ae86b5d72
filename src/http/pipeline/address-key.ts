import ipaddr from 'ipaddr.js';

/** The key of every address that does not parse (absent, garbage in a trusted X-Forwarded-For): one bucket. */
export const UNPARSABLE_ADDRESS = 'unparsable';

/** The IPv6 prefix length a client is grouped by when CLIENT_IPV6_PREFIX is unset: one site's /64. */
export const DEFAULT_IPV6_PREFIX = 64;

/** `[addr]`, `[addr]:port` (a bracketed IPv6 literal as in a URL) and `a.b.c.d:port` lose brackets and port. */
const BRACKETED = /^\[([^\]]*)\](?::\d{1,5})?$/;
const IPV4_WITH_PORT = /^([0-9a-fA-FxX.]+):\d{1,5}$/;

function bare(raw: string): string {
  const text = raw.trim();
  const bracketed = BRACKETED.exec(text);
  if (bracketed) return bracketed[1]!;
  const withPort = IPV4_WITH_PORT.exec(text);
  return withPort ? withPort[1]! : text;
}

/**
 * The one key a client address counts under, for every per-address limit: however the address is spelt
 * (case, zero compression, leading zeros, brackets, a port, a zone id, IPv4-mapped IPv6), the same address
 * gives the same key, and every IPv6 address of one `/prefix` (default /64, what one subscriber or site
 * gets) gives one key, so rotating through a /64 is not a fresh budget. IPv4 addresses count singly.
 * Parsing is ipaddr.js's (also what proxy-addr, and so TRUST_PROXY, uses).
 */
export function addressKeyer(ipv6Prefix: number = DEFAULT_IPV6_PREFIX): (address: string | undefined) => string {
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128)
    throw new RangeError('ipv6Prefix must be 1..128');
  return (address) => {
    if (address === undefined) return UNPARSABLE_ADDRESS;
    const text = bare(address);
    if (!ipaddr.isValid(text)) return UNPARSABLE_ADDRESS;
    // process(): an IPv4-mapped IPv6 address (::ffff:192.0.2.1) becomes the IPv4 address it carries.
    const parsed = ipaddr.process(text);
    if (parsed.kind() === 'ipv4') return parsed.toString();
    const parts = (parsed as ipaddr.IPv6).parts.slice();
    for (let i = 0; i < 8; i++) {
      const keep = Math.max(0, Math.min(16, ipv6Prefix - i * 16));
      parts[i] = keep === 0 ? 0 : parts[i]! & (0xffff << (16 - keep)) & 0xffff;
    }
    // A new address from the parts alone: the zone id (%eth0) is dropped.
    return `${new ipaddr.IPv6(parts).toRFC5952String()}/${ipv6Prefix}`;
  };
}
