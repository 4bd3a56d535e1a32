/**
 * Where `forest serve`'s two origins are, as a browser reaches them.
 *
 * Cookies ignore ports (RFC 6265 §8.5): a capture origin on the app's host name and another port
 * would receive the app's session cookie. A host-only cookie is not sent to another host name,
 * so by default the captures are offered under the loopback's other name (the app on 127.0.0.1,
 * the captures on localhost, and the other way round). Elsewhere, serve.captureOrigin names a
 * host of their own (behind a proxy: a second host name).
 */

/** The loopback's other name, for the default capture origin; null for any other host. */
export function otherLoopbackName(host: string): string | null {
  if (host === '127.0.0.1' || host === '::1' || host === '[::1]') return 'localhost';
  if (host === 'localhost') return '127.0.0.1';
  return null;
}

/** The captures' host name as browsers reach it: serve.captureOrigin's, or the loopback's other name, or the app's host. */
export const captureHostName = (serve: { host: string; captureOrigin: string | null }): string =>
  serve.captureOrigin === null ? otherLoopbackName(serve.host) ?? serve.host : new URL(serve.captureOrigin).hostname;

/**
 * The address the capture server listens on: the app's, except that `localhost` (which may be
 * bound to ::1 alone) becomes 127.0.0.1, the name its captures are offered under.
 */
export const captureListenHost = (host: string) => (host === 'localhost' ? '127.0.0.1' : host);

/** `http://host:port`, brackets around an IPv6 address. */
export const httpOrigin = (host: string, port: number) => `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;

/**
 * The origins the app is reached at, for the captures' frame-ancestors: its public URL's, or its
 * own address and the names of serve.allowedHosts on its port. Never the loopback's other name:
 * that is the captures' (hosts.ts).
 */
export function appOrigins(publicUrl: string | null, host: string, port: number, allowedHosts: readonly string[] | null = null): string[] {
  if (publicUrl) return [new URL(publicUrl).origin];
  return [...new Set([host, ...(allowedHosts ?? [])].map((name) => httpOrigin(name, port)))];
}
