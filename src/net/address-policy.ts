import ipaddr from 'ipaddr.js';

/**
 * Which addresses Forest may connect to. A feed is third-party input: anyone who can get an item
 * into a subscribed feed can point the archiver at any URL, so by default it refuses every
 * address that is not public unicast — loopback, RFC 1918, link-local (cloud metadata lives at
 * 169.254.169.254), carrier-grade NAT, multicast, reserved, unique-local IPv6 — and the IPv6
 * forms that embed one of those (IPv4-mapped, IPv4-translated, NAT64, 6to4). IPv6 outside 2000::/3,
 * the only space IANA's IPv6 Address Space registry allocates as global unicast, is never public
 * (among it the deprecated IPv4-compatible ::/96 of RFC 4291 §2.5.5.1, which ipaddr.js calls
 * unicast). Miniflux, CommaFeed
 * and Tiny Tiny RSS refuse the same by default after advisories of their own.
 *
 * Range tables come from ipaddr.js (maintained against the IANA special-purpose registries)
 * rather than our own bit twiddling; this module only names the ranges for people and unwraps
 * the IPv6 forms that carry an IPv4 address.
 */

/** `http.allowPrivateNetworks`: false (public only), true (anything), or the ranges also allowed. */
export type PrivateNetworksSetting = boolean | readonly string[];

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  teredo: 'a Teredo tunnel address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address (deprecated, RFC 4291 §2.5.5.1)',
  outsideGlobalUnicast: 'an IPv6 address outside the global unicast space 2000::/3',
};

/** IANA's global unicast space: the only IPv6 space whose addresses may be public. */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];
/** ::/96 (RFC 4291 §2.5.5.1): "IPv4-compatible" addresses, deprecated; :: and ::1 are named on their own. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96];

/**
 * ipaddr.js's name for the range of `address`, with what it calls unicast split where the IANA
 * registries say otherwise: IPv6 unicast outside 2000::/3 is not global.
 */
function rangeOf(address: Address): string {
  const range = address.range();
  if (range !== 'unicast' || address.kind() === 'ipv4') return range;
  const v6 = address as ipaddr.IPv6;
  if (v6.match(GLOBAL_UNICAST)) return 'unicast';
  return v6.match(IPV4_COMPATIBLE) ? 'ipv4Compatible' : 'outsideGlobalUnicast';
}

/** True when `text` is an address or a CIDR range ipaddr.js understands (for settings validation). */
export function isAddressOrRange(text: string): boolean {
  return ipaddr.isValid(text) || ipaddr.isValidCIDR(text);
}

function parseRange(text: string): [Address, number] {
  if (ipaddr.isValidCIDR(text)) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** The IPv4 address inside an IPv6 form that carries one (RFC 4291 §2.5.5, RFC 6052 §2.2, RFC 3056 §2), or null. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const parts = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return fromWords(parts[6]!, parts[7]!);
    case 'rfc6052':
      // Only the well-known prefix 64:ff9b::/96 puts the address in the last 32 bits; the
      // local-use prefix (RFC 8215) is a private network's own translator.
      return parts[1] === 0xff9b && parts[2] === 0 ? fromWords(parts[6]!, parts[7]!) : null;
    case '6to4':
      return fromWords(parts[1]!, parts[2]!);
    default:
      return null;
  }
}

export class AddressPolicy {
  private constructor(
    private readonly allowEverything: boolean,
    private readonly allowed: ReadonlyArray<[Address, number]>,
  ) {}

  static from(setting: PrivateNetworksSetting): AddressPolicy {
    if (setting === true) return new AddressPolicy(true, []);
    if (setting === false) return new AddressPolicy(false, []);
    return new AddressPolicy(false, setting.map(parseRange));
  }

  /**
   * Why a connection to `ip` is refused, in words (`10.0.0.5 is a private address`), or null
   * when it is allowed. Text that is not an IP address is refused: only resolved addresses and
   * address literals come here.
   */
  refusal(ip: string): string | null {
    const problem = this.problem(ip);
    return problem === null ? null : `${ip} is ${problem}`;
  }

  /** What kind of refused address `ip` is (`a private address`), or null when it is allowed. */
  problem(ip: string): string | null {
    if (this.allowEverything) return null;
    if (!ipaddr.isValid(ip)) return 'not an IP address';
    const address = ipaddr.parse(ip);
    return this.isListed(address) ? null : this.problemOf(address);
  }

  private isListed(address: Address): boolean {
    const candidates: Address[] = [address];
    if (address.kind() === 'ipv6') {
      const inner = embeddedIPv4(address as ipaddr.IPv6, rangeOf(address));
      if (inner) candidates.push(inner);
    }
    return candidates.some((candidate) => this.allowed.some(([base, bits]) => base.kind() === candidate.kind() && candidate.match(base, bits)));
  }

  /**
   * What kind of non-public address this is, or null for public unicast. (Called once the allow
   * list has been consulted, for the address and the IPv4 address inside it alike.)
   */
  private problemOf(address: Address): string | null {
    const range = rangeOf(address);
    if (range === 'unicast') return null;
    if (address.kind() === 'ipv6') {
      const inner = embeddedIPv4(address as ipaddr.IPv6, range);
      if (inner) {
        const innerProblem = this.problemOf(inner);
        return innerProblem === null ? null : `${innerProblem} (as ${inner.toString()} inside an IPv6 address)`;
      }
    }
    return RANGE_WORDS[range] ?? `a reserved address (${range})`;
  }
}
