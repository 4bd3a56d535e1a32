import { isTag, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { absoluteUrl, webUrl } from '../feeds/sanitize.js';
import { normalizeFeedDate } from '../feeds/dates.js';
import { holdsLink } from './blocks.js';
import { isHidden, isInside, type PreparedPage } from './dom.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { cached } from '../util/cached.js';

/** Article metadata from the page: title, byline, dates, language, lead image. */
export interface PageMetadata {
  title: string | null;
  byline: string | null;
  published: string | null;
  modified: string | null;
  language: string | null;
  leadImage: string | null;
}

/** Every element under `root`, itself included, but not into what the page hides. */
function walk(root: Element | null, visit: (element: Element) => void): void {
  if (!root || isHidden(root)) return;
  visit(root);
  for (const child of root.children) if (isTag(child)) walk(child, visit);
}

const clean = (text: string | null | undefined) => {
  const value = (text ?? '').replace(/\s+/g, ' ').trim();
  return value === '' ? null : value;
};

interface JsonLd {
  headline?: unknown;
  author?: unknown;
  datePublished?: unknown;
  dateModified?: unknown;
  image?: unknown;
  '@graph'?: unknown;
}

/** A JSON-LD node: any JSON object (its fields are read as unknown); a page's script may hold anything. */
const isJsonLd = (value: unknown): value is JsonLd => typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonLdObjects(page: PreparedPage): JsonLd[] {
  const out: JsonLd[] = [];
  const scripts = page.declarations.filter((element) => element.name === 'script');
  for (const script of scripts) {
    try {
      const parsed: unknown = JSON.parse(textContent(script));
      for (const item of Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]) {
        if (!isJsonLd(item)) continue;
        out.push(item);
        const graph = item['@graph'];
        if (Array.isArray(graph)) out.push(...(graph as unknown[]).filter(isJsonLd));
      }
    } catch {
      // Broken JSON-LD is common; the other sources remain.
    }
  }
  return out;
}

const nameOf = (value: unknown): string | null => {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map(nameOf).filter(Boolean).join(', ') || null;
  if (value && typeof value === 'object' && 'name' in value) return nameOf((value as { name: unknown }).name);
  return null;
};

/** Site names appended to titles: "Headline | Site", "Headline - Site". */
export function withoutSiteName(title: string): string {
  const parts = title.split(/\s+[|–—:-]\s+/);
  if (parts.length < 2) return title;
  return parts.reduce((longest, part) => (part.length > longest.length ? part : longest), '');
}

/**
 * What the page says of its site's name: the text (or logo's `alt`) of a link to the site's
 * home page — the masthead's link home, on nearly every page of nearly every site — a declared
 * `og:site_name` or `application-name`, the titles of the feeds it links ("Site - Atom", "Site »
 * Feed"), and its host (the page's address, else its canonical link), whose name is often the
 * site's written without spaces (lettersofnote.com, "Letters of Note"). A blog's `<title>` often
 * puts that name first ("Blog name: Post title"), and a long name is no headline (issue #54:
 * its words sent SIGFEED to the sidebar's about box, which repeats them).
 */
export interface SiteEvidence {
  /** Names as written, lower-cased. */
  names: Set<string>;
  /** Titles of the page's feed links, lower-cased. */
  feedTitles: string[];
  /** The labels of the page's host ("www.lettersofnote.com": www, lettersofnote, com). */
  hostLabels: string[];
}

export function siteEvidence(page: PreparedPage): SiteEvidence {
  return cached(siteEvidenceOfPage, page, () => evidenceOfSite(page));
}

/** Kept per page: the signifiers and the metadata both ask, and a page does not change. */
const siteEvidenceOfPage = new WeakMap<PreparedPage, SiteEvidence>();

/** An address that may be a site's home page: `/`, `./`, `//host/`, `https://host/` (an index file allowed). */
const ROOT_LIKE = /^(\.?\/|(https?:)?\/\/[^/?#]+\/?)(index\.\w+)?$/i;

function evidenceOfSite(page: PreparedPage): SiteEvidence {
  const names = new Set<string>();
  const address = page.url ?? canonicalLink(page);
  const base = address && /^https?:/i.test(address) ? new URL(address) : null;
  for (const element of page.elements) {
    const href = element.attribs['href'];
    // Only an address that can be a site's root is parsed: pages hold hundreds of links.
    if (element.name !== 'a' || !href || !ROOT_LIKE.test(href.trim())) continue;
    let target: URL;
    try {
      target = new URL(href, base ?? 'https://site.invalid/');
    } catch {
      continue;
    }
    // Without the page's address, only a relative link is known to be the site's own.
    const ownSite = base ? target.host === base.host : !/^([a-z][a-z\d+.-]*:|\/\/)/i.test(href);
    if (!ownSite || !/^\/(index\.\w+)?$/i.test(target.pathname) || target.search !== '') continue;
    const text = clean(textContent(element)) ?? clean(element.children.find((child): child is Element => isTag(child) && child.name === 'img')?.attribs['alt']);
    if (text && /\p{L}/u.test(text)) names.add(text.toLowerCase());
  }
  const feedTitles: string[] = [];
  for (const element of page.declarations) {
    const key = (element.attribs['property'] ?? element.attribs['name'] ?? '').toLowerCase();
    const content = clean(element.attribs['content']);
    if (element.name === 'meta' && (key === 'og:site_name' || key === 'application-name') && content) names.add(content.toLowerCase());
    const title = clean(element.attribs['title']);
    if (element.name === 'link' && /(^|\s)alternate(\s|$)/i.test(element.attribs['rel'] ?? '') && /(rss|atom)\+xml/i.test(element.attribs['type'] ?? '') && title) feedTitles.push(title.toLowerCase());
  }
  return { names, feedTitles, hostLabels: base ? base.hostname.toLowerCase().split('.') : [] };
}

/** Whether a part of a title (or a heading) is the site's name, by the page's evidence. */
export function isSiteName(part: string, evidence: SiteEvidence): boolean {
  const lower = part.toLowerCase().trim();
  if (lower === '' || evidence.names.has(lower)) return true;
  // A feed's title begins with the site's name and adds a word or two ("Letters of Note - Atom").
  if (evidence.feedTitles.some((title) => title.startsWith(lower) && !/[\p{L}\p{N}]/u.test(title.charAt(lower.length)))) return true;
  const spelled = lower.replace(/[^\p{L}\p{N}]/gu, '');
  // The host's name without its top-level domain ("lettersofnote"), or with it ("nhl.com").
  const [domain, joined] = [evidence.hostLabels.slice(0, -1), evidence.hostLabels.join('')];
  return spelled.length >= 3 && (domain.includes(spelled) || (joined.endsWith(spelled) && spelled.length > joined.length - domain.join('').length));
}

/** Where a title splits into parts: a separator between words ("Site: Headline", "Headline | Site - Section"). */
const TITLE_SEPARATOR = /\s+[|–—:»«·•-]\s+|(?<=[\p{L}\p{N}]):\s+/gu;

/**
 * The declared title without the parts that are the site's name (isSiteName): when they lead or
 * end it, the rest as written ("Site: Chicago 2012: Live splits" → "Chicago 2012: Live splits");
 * when one stands between others, the longest part left. Without such a part, the title without
 * its shortest parts (withoutSiteName).
 */
export function withoutSiteNames(title: string, evidence: SiteEvidence): string {
  const parts: Array<{ text: string; start: number; end: number }> = [];
  let at = 0;
  for (const separator of title.matchAll(TITLE_SEPARATOR)) {
    parts.push({ text: title.slice(at, separator.index), start: at, end: separator.index });
    at = separator.index + separator[0].length;
  }
  parts.push({ text: title.slice(at), start: at, end: title.length });
  const named = parts.map((part) => isSiteName(part.text, evidence));
  const first = named.indexOf(false);
  const last = named.lastIndexOf(false);
  if (parts.length < 2 || first < 0 || !named.includes(true)) return withoutSiteName(title);
  if (named.slice(first, last + 1).every((isName) => !isName)) return title.slice(parts[first]!.start, parts[last]!.end).trim();
  return parts.filter((_, i) => !named[i]).map((part) => part.text.trim()).reduce((longest, part) => (part.length > longest.length ? part : longest), '');
}

/** The titles a page declares: JSON-LD headline, og:title, `<title>`. */
function declaredTitlesOf(page: PreparedPage): string[] {
  const ld = jsonLdObjects(page);
  const headline = clean(nameOf(ld.map((item) => item.headline).find((value) => value !== undefined && value !== null)));
  const og = page.declarations.find((element) => element.name === 'meta' && (element.attribs['property'] ?? element.attribs['name'] ?? '').toLowerCase() === 'og:title');
  const titleElement = page.declarations.find((element) => element.name === 'title');
  return [headline, clean(og?.attribs['content']), titleElement ? clean(textContent(titleElement)) : null].filter((title): title is string => title !== null);
}

/**
 * The page's headline element: the first `<h1>`–`<h3>` (inside `node` first) whose words the
 * declared title shares — not the site's name in the masthead, which the declared title
 * carries too.
 */
export function titleHeading(page: PreparedPage, node: Element | null, t: ExtractorOptions = EXTRACTOR_OPTIONS): Element | null {
  const declaredTitles = declaredTitlesOf(page);
  if (declaredTitles.length === 0) return null;
  const evidence = siteEvidence(page);
  const headings = ['h1', 'h2', 'h3'].flatMap((tag) => {
    const all = page.elements.filter((element) => element.name === tag);
    const inside = node ? all.filter((h) => isInside(h, node)) : [];
    return [...inside, ...all.filter((h) => !inside.includes(h))];
  });
  return headings.find((heading) => {
    const text = clean(textContent(heading));
    return text !== null && text.length <= t.titleChars && !isSiteName(text, evidence) && declaredTitles.some((declared) => covers(declared, text, t));
  }) ?? null;
}

/**
 * The page's headline wherever it lies (titleHeading without a node), kept per page and
 * thresholds: cleaning asks whether a box holds it, and every extraction of a page cleans several
 * blocks (the candidates, the per-page guard, the leave-one-out check).
 */
const headlineOfPage = new WeakMap<PreparedPage, WeakMap<ExtractorOptions, Element | null>>();
export function pageHeadline(page: PreparedPage, t: ExtractorOptions = EXTRACTOR_OPTIONS): Element | null {
  return cached(cached(headlineOfPage, page, () => new WeakMap<ExtractorOptions, Element | null>()), t, () => titleHeading(page, null, t));
}

/** Whether the page's headline (pageHeadline) lies in `node`. */
export function holdsHeadline(page: PreparedPage, node: Element, t: ExtractorOptions = EXTRACTOR_OPTIONS): boolean {
  const headline = pageHeadline(page, t);
  return headline !== null && isInside(headline, node);
}

/**
 * The page's metadata around the article's node. The byline is the page's declared author
 * (JSON-LD, meta), else a byline element in the article's region (articleRegion) — else the
 * feed item's author. Dates from a `<time>` are read from the same region.
 */
export function pageMetadata(page: PreparedPage, node: Element | null, feedAuthor: string | null = null, t: ExtractorOptions = EXTRACTOR_OPTIONS): PageMetadata {
  const meta = new Map<string, string>();
  for (const element of page.declarations) {
    if (element.name !== 'meta') continue;
    const key = (element.attribs['property'] ?? element.attribs['name'] ?? element.attribs['itemprop'] ?? '').toLowerCase();
    const content = element.attribs['content'];
    if (key && content && !meta.has(key)) meta.set(key, content);
  }
  const titleElement = page.declarations.find((element) => element.name === 'title');
  const headTitle = titleElement ? clean(textContent(titleElement)) : null;
  const ld = jsonLdObjects(page);
  const ldValue = (key: keyof JsonLd) => ld.map((item) => item[key]).find((value) => value !== undefined && value !== null);

  // Title: the page's own headline element, as readers see it — the first heading (inside the
  // article first) whose words the declared title shares; else the headline shown with the
  // article; else the declared title.
  const heading = titleHeading(page, node, t);
  let title: string | null = heading ? clean(textContent(heading)) : null;
  title ??= headlineNear(page, node, t);
  title ??= clean(nameOf(ldValue('headline'))) ?? clean(meta.get('og:title')) ?? (headTitle ? withoutSiteNames(headTitle, siteEvidence(page)) : null);

  const region = articleRegion(node, t);
  let timeElement: string | null = null;
  for (const element of region) walk(element, (child) => {
    if (child.name === 'time' && timeElement === null) timeElement = child.attribs['datetime'] ?? clean(textContent(child));
  });
  const byline = nameOf(ldValue('author')) ?? clean(meta.get('author')) ?? clean(meta.get('article:author')) ?? bylineIn(region) ?? clean(feedAuthor);
  const image = ldValue('image');
  const imageUrl = typeof image === 'string' ? image : Array.isArray(image) ? (typeof image[0] === 'string' ? image[0] : nameOfUrl(image[0])) : nameOfUrl(image);
  const declaredImage = absoluteUrl(meta.get('og:image') ?? imageUrl ?? null, page.url);
  return {
    title,
    byline: byline && byline.length <= t.bylineChars ? byline : null,
    published: normalizeFeedDate(String(ldValue('datePublished') ?? meta.get('article:published_time') ?? meta.get('date') ?? timeElement ?? '')),
    modified: normalizeFeedDate(String(ldValue('dateModified') ?? meta.get('article:modified_time') ?? '')),
    language: page.language,
    leadImage: leadImageOf(page, region, declaredImage, t),
  };
}

function nameOfUrl(value: unknown): string | null {
  return value && typeof value === 'object' && 'url' in value && typeof (value as { url: unknown }).url === 'string' ? (value as { url: string }).url : null;
}

/** Most of the heading's words are in the declared title (which may add the site name). */
function covers(declared: string, heading: string, t: ExtractorOptions): boolean {
  const declaredWords = new Set(declared.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const headingWords = heading.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (headingWords.length === 0) return false;
  const shared = headingWords.filter((word) => declaredWords.has(word)).length;
  return shared / headingWords.length >= t.headingCoverage && shared / Math.max(1, declaredWords.size) >= t.declaredCoverage;
}

/** An image that may be the article's own: not a link (teasers' and ads' images are), not an icon, not inline data. */
function articleImage(element: Element, t: ExtractorOptions): string | null {
  if (element.name !== 'img') return null;
  const src = element.attribs['src']?.trim();
  if (!src || src.startsWith('data:')) return null;
  const size = (name: string) => Number.parseInt(element.attribs[name] ?? '', 10);
  if (size('width') <= t.iconPixels || size('height') <= t.iconPixels) return null;
  for (let parent = element.parent; parent && isTag(parent); parent = parent.parent) if (parent.name === 'a') return null;
  return src;
}

/** Whether the element sits in a `<figure>` (HTML's self-contained illustration of the main text). */
function inFigure(element: Element): boolean {
  for (let parent = element.parent; parent && isTag(parent); parent = parent.parent) if (parent.name === 'figure') return true;
  return false;
}

/**
 * The article's lead image (issue #10): the first image of the article's node, else the first
 * `<figure>` image before it in its region (a hero between headline and body: outside a figure,
 * an image there is as likely the site's logo, which must not enter the object), else the image
 * the page declares (og:image, JSON-LD) when the page shows it. An image the page only declares
 * is a share card, not part of what readers see.
 */
function leadImageOf(page: PreparedPage, region: Element[], declared: string | null, t: ExtractorOptions): string | null {
  for (const [index, root] of region.entries()) {
    let found: string | null = null;
    walk(root, (element) => {
      if (found === null && element.name === 'img' && (index === 0 || inFigure(element))) found = articleImage(element, t);
    });
    if (found) return absoluteUrl(found, page.url);
  }
  if (!declared) return null;
  const shown = page.elements.some((element) => element.name === 'img' && element.attribs['src'] && absoluteUrl(element.attribs['src'], page.url) === declared);
  return shown ? declared : null;
}

/**
 * The headline shown with the article: in its region (articleRegion), the first `<h1>` inside its
 * node, else the nearest one before it; else the same for `<h2>` (an `<h1>` first: the `<h2>` after
 * a headline is its deck). Without an article, the page's first. A heading in a link, or holding
 * one, is a teaser's or the site's logo. Asked for when the declared titles name none of the
 * page's headings — a title written for search results ("Holiday Dresses for Girls | Atlanta -
 * Site") beside the display headline readers see ("Little Threads: Joy to the Girls").
 */
function headlineNear(page: PreparedPage, node: Element | null, t: ExtractorOptions): string | null {
  const body = page.elements.find((element) => element.name === 'body');
  const roots = node ? articleRegion(node, t) : body ? [body] : [];
  for (const tag of ['h1', 'h2']) {
    for (const root of roots) {
      const headings: Element[] = [];
      walk(root, (element) => {
        if (element.name === tag && !linked(element)) headings.push(element);
      });
      const heading = root === node || !node ? headings[0] : headings.at(-1);
      const text = heading ? clean(textContent(heading)) : null;
      if (text && text.length <= t.titleChars) return text;
    }
  }
  return null;
}

function linked(heading: Element): boolean {
  for (let parent = heading.parent; parent && isTag(parent); parent = parent.parent) if (parent.name === 'a') return true;
  return holdsLink(heading);
}

/**
 * Where the article's own byline and date are looked for: its node, then what precedes the node
 * in its nearest containers, nearest first. A wrapper's node is often the body alone, below the
 * headline, byline and date that single-page extraction's larger node holds: both find the same.
 */
function articleRegion(node: Element | null, t: ExtractorOptions): Element[] {
  if (!node) return [];
  const region = [node];
  let at = node;
  for (let level = 0; level < t.headerLevels; level++) {
    const parent: Element | null = at.parent && isTag(at.parent) ? at.parent : null;
    if (!parent || parent.name === 'body') break;
    region.push(...parent.children.slice(0, parent.children.indexOf(at)).filter(isTag).reverse());
    at = parent;
  }
  return region;
}

/** An author element (the name itself), else a byline element, in `roots` (in their order); comments are not the article's. */
function bylineIn(roots: Element[]): string | null {
  for (const pattern of [/\b(author|fn)\b/i, /\bbyline\b/i]) {
    let found: string | null = null;
    const visit = (element: Element) => {
      if (found) return;
      const label = `${element.attribs['class'] ?? ''} ${element.attribs['rel'] ?? ''} ${element.attribs['itemprop'] ?? ''}`;
      if (/comment/i.test(element.attribs['class'] ?? '') || /comment/i.test(element.attribs['id'] ?? '')) return;
      if (pattern.test(label)) found = clean(textContent(element).replace(/^\s*by\s+/i, '').split(/\s+[·|]\s+/)[0]);
      else for (const child of element.children) if (isTag(child)) visit(child);
    };
    roots.forEach(visit);
    if (found) return found;
  }
  return null;
}

/**
 * The page's `<link rel=canonical>`, as an absolute http(s) URL, or null (also when it does not
 * parse as one: it enters the archive as an address, and is shown in headers and links): read
 * from the same parse as everything else (a capture is parsed once).
 */
export function canonicalLink(page: PreparedPage): string | null {
  const href = page.declarations.find((element) => element.name === 'link' && /(^|\s)canonical(\s|$)/i.test(element.attribs['rel'] ?? '') && element.attribs['href'])?.attribs['href'];
  return webUrl(href, page.url);
}
