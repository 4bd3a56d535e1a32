import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Browser sessions for the web app's actions (subscribe, pause, unsubscribe), with nothing stored
 * on the server: logging in with serve.token sets a cookie holding an expiry signed with the
 * token (HMAC-SHA256), so changing the token logs everybody out. Forms that change something
 * carry a CSRF token derived from the session (the "signed double-submit" pattern of OWASP's CSRF
 * cheat sheet): another site can make a browser send the cookie, never read the form's token. The
 * cookie is also SameSite=Strict and HttpOnly.
 */

export const SESSION_COOKIE = 'forest_session';
/** How long a login lasts. */
export const SESSION_HOURS = 12;

const sign = (token: string, message: string) => createHmac('sha256', token).update(message).digest('base64url');

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Whether a secret someone typed is the configured one, in constant time (digests: equal lengths whatever was typed). */
export const sameSecret = (given: string, expected: string) =>
  timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());

/** A new session's cookie value: `expiry.signature`. */
export function newSession(token: string, now: Date): string {
  const expiry = String(now.getTime() + SESSION_HOURS * 3_600_000);
  return `${expiry}.${sign(token, `session:${expiry}`)}`;
}

/** Whether a cookie value is a session signed with `token` and not expired. */
export function validSession(token: string, value: string | undefined, now: Date): boolean {
  if (!value) return false;
  const [expiry, signature] = value.split('.');
  if (!expiry || !signature || !/^\d+$/.test(expiry) || Number(expiry) < now.getTime()) return false;
  return same(signature, sign(token, `session:${expiry}`));
}

/** The CSRF token of a session: what its forms carry. */
export const csrfToken = (token: string, session: string) => sign(token, `csrf:${session}`);

export function validCsrf(token: string, session: string, given: string | undefined): boolean {
  return given !== undefined && same(given, csrfToken(token, session));
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
