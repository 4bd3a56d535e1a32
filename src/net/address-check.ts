import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.js';

/** What to do about a refused address, for the person who meant to reach it: the setting that allows it. */
export const ALLOW_PRIVATE_HINT = 'to archive it, allow the address in http.allowPrivateNetworks (e.g. [127.0.0.1/32], or true on a closed network)';

/** How the fetcher's refusals begin (an address the policy refuses, or a scheme it does not fetch). */
export const REFUSED = 'blocked:';

/** The hint for an error that is an address refusal (http.allowPrivateNetworks would allow it), or null. */
export const allowHintFor = (error: string): string | null => (error.startsWith(REFUSED) && !error.includes('unsupported scheme') ? ALLOW_PRIVATE_HINT : null);

/**
 * Why Forest would refuse to fetch `url` under `policy`, checked ahead of time (`feeds add`): an
 * address literal the policy refuses, or a name every address of which it refuses. Null when it
 * is allowed, or when the name does not resolve now (the fetch will say so then). The fetcher
 * still checks every connection: this is a warning, not the guard.
 */
export async function addressRefusal(url: string, policy: AddressPolicy, resolve: typeof lookup = lookup): Promise<string | null> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
  if (isIP(host)) return policy.refusal(host);
  try {
    const addresses = await resolve(host, { all: true });
    const refused = addresses.map((entry) => policy.refusal(entry.address));
    return refused.length > 0 && refused.every((reason) => reason !== null) ? `${host} resolves to ${refused[0]}` : null;
  } catch {
    return null;
  }
}
