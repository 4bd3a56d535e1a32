/**
 * URLs from the archive, made safe for where the server writes them. A stored URL came from a
 * feed or a page, so it is someone else's text.
 */

/**
 * A URL as a URI-reference (RFC 3986 §4.1), for a header's `<…>` (RFC 8288 §3) or a Location:
 * every character a URI may not hold — `<`, `>`, `"`, spaces, controls, non-ASCII — is
 * percent-encoded as UTF-8, so a stored URL can never end the `<…>` and add links of its own.
 * A `%` that does not start an escape is encoded too.
 */
export function uriReference(url: string): string {
  return url.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu, (character) => encodeURIComponent(character));
}

/** `url` when it is an absolute http(s) URL, for a link a reader may follow; else null (shown as text). */
export function webHref(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
