import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The subscriber's side of WebSub (W3C Recommendation, 23 January 2018), as pure functions:
 * discovery (§4), the subscription request (§5.1), verification of intent (§5.3) and
 * authenticated content distribution (§8). daemon/websub.ts sends the requests; web/websub.ts
 * answers the hub.
 */

export const WEBSUB_OPTIONS = {
  /** hub.secret's length in random bytes (hex: 64 characters; §5.1 asks for fewer than 200 bytes). */
  secretBytes: 32,
  /** The callback id's length in random bytes: the callback URL is unique per subscription (§5.1) and unguessable. */
  callbackBytes: 24,
  /** A subscription is renewed once this share of its lease has passed (a hub's lease ends it, §5.3). */
  renewAfterShare: 0.8,
  /** A request the hub has not verified by this long after it (ms) is tried again: the callback may not be reachable from the hub. */
  verifyWithinMs: 3600_000,
  /** A failed request is retried after this long (ms), doubling each time up to `retryMaxMs`. */
  retryFirstMs: 5 * 60_000,
  retryMaxMs: 24 * 3600_000,
  /** Unsubscription requests sent before the subscription is forgotten (a hub that never confirms the end). */
  unsubscribeAttempts: 3,
  /** Polls in a row that find items no push announced before the hub is judged silent and the feed polled in full again. */
  missesBeforeDrop: 2,
  /** The longest lease taken from a hub (s): a hub may grant any number, a date past this one is no lease we need. */
  maxLeaseSeconds: 366 * 86400,
  /** Signatures of counted pushes remembered per subscription, to ignore replays (web/websub.ts). */
  replaysRemembered: 1000,
} as const;

export interface LinkValue {
  href: string;
  rels: string[];
}

/** An HTTP Link header (RFC 8288 §3): each `<URI-reference>` with its relation types, lower-cased. */
export function parseLinkHeader(header: string | undefined): LinkValue[] {
  if (!header) return [];
  const links: LinkValue[] = [];
  // <uri>; param=value; param="quoted, value", <uri>…
  const pattern = /<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))?)*)/g;
  for (const match of header.matchAll(pattern)) {
    const rels: string[] = [];
    for (const parameter of match[2]!.matchAll(/;\s*([^;,=\s]+)(?:\s*=\s*("(?:[^"\\]|\\.)*"|[^;,]*))?/g)) {
      if (parameter[1]!.toLowerCase() !== 'rel' || parameter[2] === undefined) continue;
      const value = parameter[2].startsWith('"') ? parameter[2].slice(1, -1).replace(/\\(.)/g, '$1') : parameter[2];
      rels.push(...value.trim().toLowerCase().split(/\s+/).filter(Boolean));
    }
    links.push({ href: match[1]!.trim(), rels });
  }
  return links;
}

const absolute = (href: string, base: string): string | null => {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
};

/**
 * A feed's hub and topic (§4): the Link header's `hub` and `self` first, else the document's
 * (`link rel=hub` / `rel=self`, JSON Feed's hubs and feed_url); relative references resolve
 * against the document's URL. A hub with no self link is subscribed to with the URL fetched.
 */
export function discoverHub(linkHeader: string | undefined, document: { hub: string | null; self: string | null }, url: string): { hub: string | null; self: string | null } {
  const links = parseLinkHeader(linkHeader);
  const headerLink = (rel: string) => {
    const link = links.find((candidate) => candidate.rels.includes(rel));
    return link ? absolute(link.href, url) : null;
  };
  const hub = headerLink('hub') ?? document.hub;
  return { hub, self: headerLink('self') ?? document.self };
}

/** When a verified subscription's lease ends, and when it is renewed (before it ends). */
export function leaseTimes(leaseSeconds: number, now: Date): { leaseUntil: Date; renewAt: Date } {
  const ms = leaseSeconds * 1000;
  return { leaseUntil: new Date(now.getTime() + ms), renewAt: new Date(now.getTime() + ms * WEBSUB_OPTIONS.renewAfterShare) };
}

/** How long after the `attempts`-th failed request the next is sent. */
export const retryDelayMs = (attempts: number): number => Math.min(WEBSUB_OPTIONS.retryMaxMs, WEBSUB_OPTIONS.retryFirstMs * 2 ** Math.max(0, Math.min(attempts, 20)));

const SIGNATURE_METHODS: Record<string, number> = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 };

/**
 * Whether a push's `X-Hub-Signature: method=hex` is the HMAC of its exact body with our
 * hub.secret (§8: sha1, sha256, sha384 or sha512). A push that fails is ignored (§8: "MUST
 * locally ignore the message as invalid").
 */
export function validSignature(header: string | undefined, body: Buffer, secret: string): boolean {
  const match = /^(sha1|sha256|sha384|sha512)=([0-9a-f]+)$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  const method = match[1]!.toLowerCase();
  const given = Buffer.from(match[2]!.toLowerCase(), 'hex');
  if (given.length !== SIGNATURE_METHODS[method]) return false;
  return timingSafeEqual(given, createHmac(method, secret).update(body).digest());
}

/** The request body of a subscription or unsubscription (§5.1, application/x-www-form-urlencoded). */
export function subscriptionForm(request: { mode: 'subscribe' | 'unsubscribe'; topic: string; callback: string; secret: string; leaseSeconds: number }): Record<string, string> {
  return {
    'hub.mode': request.mode,
    'hub.topic': request.topic,
    'hub.callback': request.callback,
    ...(request.mode === 'subscribe' ? { 'hub.lease_seconds': String(Math.round(request.leaseSeconds)), 'hub.secret': request.secret } : {}),
  };
}

/** The state of a feed's subscription as its poll sees it. */
export interface PushedFeed {
  state: string;
  leaseUntil: string | null;
  lastPushAt: string | null;
  missedInRow: number;
}

/** Whether a hub pushes this feed now: an active subscription whose lease has not ended. */
export const pushedNow = (push: PushedFeed | null, at: number): boolean =>
  push !== null && push.state === 'active' && (push.leaseUntil === null || Date.parse(push.leaseUntil) > at);

/**
 * A poll of a pushed feed checks that the hub delivers: new items that no push announced since
 * the poll before (a push makes the feed due at once, so a pushed item is found by the poll it
 * triggered) count as a miss; `missesBeforeDrop` in a row and the hub is judged silent — the
 * subscription is dropped and the feed polled on its own schedule again.
 */
export function hubKeptUp(push: PushedFeed, previousPollAt: number | null, newItems: number): { missedInRow: number; drop: boolean } {
  if (newItems === 0 || previousPollAt === null) return { missedInRow: push.missedInRow, drop: false };
  const announced = push.lastPushAt !== null && Date.parse(push.lastPushAt) >= previousPollAt;
  const missedInRow = announced ? 0 : push.missedInRow + 1;
  return { missedInRow, drop: missedInRow >= WEBSUB_OPTIONS.missesBeforeDrop };
}

const STATE_WORDS: Record<string, string> = {
  subscribing: 'asked the hub to push it, waiting for the hub to verify',
  active: 'pushed by its hub',
  unsubscribing: 'asked the hub to stop pushing it',
  denied: 'the hub denied the subscription',
  failed: 'the subscription failed',
  dropped: 'the hub stayed silent while polls found items: polled in full again',
};

/** A subscription in a line, for status and the feed page. */
export function pushInWords(push: { hub: string; state: string; leaseUntil: string | null; pushes: number; lastPushAt: string | null; lastError: string | null }): string {
  const host = (() => {
    try {
      return new URL(push.hub).host;
    } catch {
      return push.hub;
    }
  })();
  const parts = [`WebSub (${host}): ${STATE_WORDS[push.state] ?? push.state}`];
  if (push.state === 'active' && push.leaseUntil) parts.push(`lease until ${push.leaseUntil.slice(0, 16).replace('T', ' ')} UTC`);
  parts.push(`${push.pushes} push${push.pushes === 1 ? '' : 'es'}${push.lastPushAt ? `, the last at ${push.lastPushAt.slice(0, 16).replace('T', ' ')} UTC` : ''}`);
  if (push.lastError && push.state !== 'active') parts.push(push.lastError);
  return parts.join(' · ');
}
