import { DAEMON_OPTIONS } from './options.js';
/**
 * Is a revisited page still the article? A revisit may find the article edited — or find that
 * it is no longer there although the server answers 200: the site redirects dead links to its
 * home page (a "soft 404", Bar-Yossef et al., "Sic transit gloria telae", WWW 2004), sends
 * them to another story, or serves a paywall, a consent wall or an error page in the article's
 * place. Recording such a page as a new version would turn a deletion into an "edit" that wipes
 * the article; recording it as `unavailable` keeps the capture and leaves the versions alone.
 *
 * Pure rules, each with the reason it gives; the thresholds are in options.ts (DAEMON_OPTIONS.availability).
 */

const isHomePage = (url: URL) => url.pathname.replace(/\/+$/, '') === '' && url.search === '';

/** The same page, whatever the scheme, a `www.` or a trailing slash say. */
function samePage(a: URL, b: URL): boolean {
  const host = (url: URL) => url.hostname.replace(/^www\./, '');
  const path = (url: URL) => url.pathname.replace(/\/+$/, '');
  return host(a) === host(b) && path(a) === path(b) && a.search === b.search;
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Why a revisit that ended at `finalUrl` did not find the article at `articleUrl`, or null.
 * `otherArticle` is the archived article whose page `finalUrl` is, if any (looked up by the
 * caller). A redirect anywhere else — a new slug after a headline edit, https, a new domain —
 * may well be the article, and extraction decides.
 */
export function redirectVerdict(articleUrl: string, finalUrl: string, otherArticle: { id: number } | null): string | null {
  const from = parse(articleUrl);
  const to = parse(finalUrl);
  if (!from || !to || samePage(from, to)) return null;
  if (isHomePage(to) && !isHomePage(from)) return `redirected to the home page ${finalUrl}`;
  if (otherArticle) return `redirected to another article (#${otherArticle.id}) at ${finalUrl}`;
  return null;
}

/** Why a page whose canonical URL is `canonical` no longer presents the article, or null. */
export function canonicalVerdict(articleUrl: string, previousCanonical: string | null, canonical: string | null): string | null {
  if (canonical === null || canonical === previousCanonical) return null;
  const from = parse(previousCanonical ?? articleUrl);
  const to = parse(canonical);
  if (!from || !to || samePage(from, to)) return null;
  return isHomePage(to) && !isHomePage(from) ? `the page's canonical URL is now the home page ${canonical}` : null;
}

/** Why an extracted text of `chars` characters is no longer the article of `previousChars`, or null. */
export function textVerdict(previousChars: number, chars: number): string | null {
  if (previousChars < DAEMON_OPTIONS.availability.unavailableMinPreviousChars) return null;
  if (chars >= previousChars * DAEMON_OPTIONS.availability.unavailableTextShare) return null;
  return `the page has ${chars} characters of text where the article had ${previousChars} (paywall, consent wall or error page?)`;
}
