import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { WEB_OPTIONS, type WebOptions } from './options.js';

/**
 * Browser sessions for the web app, held by the server: logging in with serve.token creates a
 * random session id (the cookie's value) that the server remembers until it expires or the user
 * logs out, so logging out ends the session for whoever holds a copy of the cookie, and a restart
 * (which a change of serve.token needs) ends them all. Forms that change something carry a CSRF
 * token derived from the session id and the token (the "signed double-submit" pattern of OWASP's
 * CSRF cheat sheet): another site can make a browser send the cookie, never read the form's
 * token. The cookie is also SameSite=Strict and HttpOnly.
 */

export const SESSION_COOKIE = 'forest_session';

/** Who is looking at a page: a logged-in archivist (with the CSRF token their forms carry), or a reader. */
export type Viewer = { csrf: string } | null;

const sign = (token: string, message: string) => createHmac('sha256', token).update(message).digest('base64url');

/** Whether two secrets are equal, in constant time whatever their lengths (the digests are compared, so a wrong length tells nothing either). */
export const sameSecret = (given: string, expected: string) =>
  timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());

export class Sessions {
  /** Session id → expiry (ms), oldest first (a Map keeps insertion order). */
  private readonly expiries = new Map<string, number>();

  constructor(private readonly token: string, private readonly options: Pick<WebOptions, 'sessionLifetime' | 'maxSessions'> = WEB_OPTIONS) {}

  /** A new session's id: the cookie's value. */
  create(now: number): string {
    for (const [id, expiry] of this.expiries) if (expiry <= now) this.expiries.delete(id);
    while (this.expiries.size >= this.options.maxSessions) this.expiries.delete(this.expiries.keys().next().value!);
    const id = randomBytes(32).toString('base64url');
    this.expiries.set(id, now + this.options.sessionLifetime);
    return id;
  }

  /** Whether `id` names a live session. */
  valid(id: string | undefined, now: number): boolean {
    if (!id) return false;
    const expiry = this.expiries.get(id);
    if (expiry === undefined) return false;
    if (expiry > now) return true;
    this.expiries.delete(id);
    return false;
  }

  /** Logging out: the session ends for every copy of its cookie. */
  end(id: string | undefined): void {
    if (id) this.expiries.delete(id);
  }

  /** The CSRF token of a session: what its forms carry. */
  csrf(id: string): string {
    return sign(this.token, `csrf:${id}`);
  }

  validCsrf(id: string, given: string | undefined): boolean {
    return given !== undefined && sameSecret(given, this.csrf(id));
  }

  get lifetimeSeconds(): number {
    return Math.floor(this.options.sessionLifetime / 1000);
  }
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * A capture ticket: what lets a browser open one URL's captures on the capture origin when reads
 * need the token, without the app's cookie ever going there. The app mints it for the frame it
 * embeds; it names its expiry and is signed with serve.token over the original URL, so it opens
 * that URL's captures only, and only for a while.
 */
export function captureTicket(token: string, original: string, now: number, lifetime: number = WEB_OPTIONS.captureTicketLifetime): string {
  const expiry = String(now + lifetime);
  return `${expiry}.${sign(token, `capture:${expiry}:${original}`)}`;
}

export function validCaptureTicket(token: string, ticket: string, original: string, now: number): boolean {
  const [expiry, signature, ...rest] = ticket.split('.');
  if (!expiry || !signature || rest.length > 0 || !/^\d{1,15}$/.test(expiry) || Number(expiry) <= now) return false;
  return sameSecret(signature, sign(token, `capture:${expiry}:${original}`));
}
