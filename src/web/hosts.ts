import ipaddr from 'ipaddr.js';

/**
 * Which names each of `forest serve`'s two ports answers to (the Host header).
 *
 * DNS rebinding: a site an archivist visits can make its own name resolve to 127.0.0.1, and its
 * script then reads whatever answers there as same-origin — a `public: true` archive bound to
 * loopback included. The browser still sends the attacker's name in Host, so a server that
 * answers only its own names is out of reach (development and notebook servers do the same:
 * webpack-dev-server's allowedHosts, Jupyter's local_hostnames). An IP address in Host cannot be
 * rebound, so it is answered — except the captures' own, on the app's port.
 *
 * Cookies ignore ports (RFC 6265 §8.5): if the app answered under the captures' host name, a login
 * made there would go to the captures too. So the captures' host name is never one of the app's,
 * and the capture port answers that name alone.
 */

export interface HostNames {
  /** Whether the app's port answers a request whose Host is `host`. */
  app(host: string | undefined): boolean;
  /** Whether the capture port does. */
  capture(host: string | undefined): boolean;
}

/** The host name of a Host header (`Example.org:8080` → `example.org`, `[::1]:80` → `::1`), or null when it is not one. */
export function hostNameOf(header: string | undefined): string | null {
  if (!header) return null;
  try {
    const { hostname } = new URL(`http://${header}`);
    if (hostname === '') return null;
    return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  } catch {
    return null;
  }
}

/** A name as hostNameOf gives it: lower case, an IPv6 address without brackets. */
const plain = (name: string) => hostNameOf(name.includes(':') && !name.startsWith('[') ? `[${name}]` : name) ?? name.toLowerCase();

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * The names each port answers to: `allowed` (serve.allowedHosts) or, when it is null, the name
 * the app listens on and its public URL's host; the capture port, `captureHost` alone (its name
 * is known before either port listens: origins.ts, captureHostName).
 */
export function hostNames(settings: { host: string; publicUrl: string | null; allowedHosts: readonly string[] | null }, captureHost: string): HostNames {
  const own = new Set((settings.allowedHosts ?? [
    ...(WILDCARDS.has(plain(settings.host)) ? [] : [settings.host]),
    ...(settings.publicUrl ? [new URL(settings.publicUrl).hostname] : []),
  ]).map(plain));
  const captures = plain(captureHost);
  return {
    app(header) {
      const name = hostNameOf(header);
      if (name === null || name === captures) return false;
      return own.has(name) || ipaddr.isValid(name);
    },
    capture(header) {
      const name = hostNameOf(header);
      // Captures offered at a wildcard address (no captureOrigin on a host of 0.0.0.0) are reached by IP.
      return name !== null && (name === captures || (WILDCARDS.has(captures) && ipaddr.isValid(name)));
    },
  };
}
