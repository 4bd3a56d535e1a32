import { getDomain, getHostname } from 'tldts';

/**
 * Which site a URL belongs to: its registrable domain under the Public Suffix List (tldts ships
 * the list, ICANN and private sections both, so two blogs on one hosting suffix are two sites),
 * or its host where there is none (an IP address, `localhost`).
 *
 * A page's canonical link is the page's claim about its own address: any page can claim any URL.
 * It may group the URLs of one site's article (`?utm=…`, an AMP copy, an old path), never tie a
 * page to another site's URL.
 */
export function siteOf(url: string): string | null {
  const host = getHostname(url);
  if (!host) return null;
  return getDomain(url, { allowPrivateDomains: true }) ?? host.toLowerCase();
}

/** Whether two URLs are of one site (false when either is no URL). */
export function sameSite(a: string, b: string): boolean {
  const site = siteOf(a);
  return site !== null && site === siteOf(b);
}

/**
 * Whether `canonical`, as the page at `fetched` (the URLs Forest requested and ended at) names
 * itself, may stand for it: only a URL of the same site.
 */
export const canonicalOfOwnSite = (canonical: string | null, fetched: ReadonlyArray<string | null>): canonical is string =>
  canonical !== null && fetched.some((url) => url !== null && sameSite(canonical, url));

/**
 * Of the articles that name the same canonical URL as `article`, those it may be grouped with:
 * the canonical URL is of the site Forest fetched each of them from, or it groups nothing.
 */
export function groupedByCanonical<T extends { url: string; finalUrl: string | null }>(article: T & { canonicalUrl: string | null }, others: readonly T[]): T[] {
  const canonical = article.canonicalUrl;
  if (!canonicalOfOwnSite(canonical, [article.url, article.finalUrl])) return [];
  return others.filter((other) => canonicalOfOwnSite(canonical, [other.url, other.finalUrl]));
}
