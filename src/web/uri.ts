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

/**
 * The URLs a request's path may name: as sent, and — where a client followed a link Forest wrote
 * with uriReference (a TimeGate's Location) — the stored URL it was written from, when encoding
 * that one gives back exactly what was sent. A stored `…/x>` is asked for as `…/x%3E`.
 */
export function originalCandidates(sent: string): string[] {
  const decoded = sent.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    let text: string;
    try {
      text = decodeURIComponent(run);
    } catch {
      return run;
    }
    // Only what uriReference encodes is decoded; an escape of an allowed character stays one.
    return [...text].map((character) => (uriReference(character) === character ? encodeURIComponent(character) : character)).join('');
  });
  return decoded !== sent && uriReference(decoded) === sent ? [sent, decoded] : [sent];
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
