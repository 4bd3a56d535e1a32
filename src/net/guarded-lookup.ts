import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.js';

/** A connection the address policy refused; `message` is the reason shown on the feed or item. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'EBLOCKED';
  constructor(reason: string) {
    super(`blocked: ${reason}`);
  }
}

/**
 * A DNS lookup that hands the socket only addresses the policy allows. It runs where the socket
 * resolves its host, right before connecting, so the address checked is the address connected
 * to: a name that resolved to a public address for one request and a private one for the next
 * (DNS rebinding) is checked each time. Of several addresses, the refused ones are dropped; when
 * none is left the connection fails with the first refusal.
 */
export function guardedLookup(policy: AddressPolicy, resolve: LookupFunction = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, resolved) => {
      if (error) return callback(error, '', 0);
      const addresses: LookupAddress[] = Array.isArray(resolved) ? resolved : [{ address: String(resolved), family: isIP(String(resolved)) }];
      const allowed = addresses.filter((entry) => policy.problem(entry.address) === null);
      if (allowed.length === 0) {
        const first = addresses[0];
        const reason = first ? `${hostname} resolves to ${first.address}, ${policy.problem(first.address)}` : `${hostname} has no address`;
        return callback(new BlockedAddressError(reason), '', 0);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/** Why the host of `url`, when it is an address literal, is refused (literals skip DNS); null otherwise. */
export function literalRefusal(policy: AddressPolicy, url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? policy.refusal(host) : null;
}
