import { isTag, type Element } from 'domhandler';
import { textContent } from 'domutils';
import { absoluteUrl } from '../feeds/sanitize.js';
import { normalizeFeedDate } from '../feeds/dates.js';
import { isInside, type PreparedPage } from './dom.js';

/** Article metadata from the page: title, byline, dates, language, lead image. */
export interface PageMetadata {
  title: string | null;
  byline: string | null;
  published: string | null;
  modified: string | null;
  language: string | null;
  leadImage: string | null;
}

function walk(root: Element | null, visit: (element: Element) => void): void {
  if (!root) return;
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

function jsonLdObjects(page: PreparedPage): JsonLd[] {
  const out: JsonLd[] = [];
  const scripts: Element[] = [];
  walk(page.head, (element) => {
    if (element.name === 'script' && element.attribs['type'] === 'application/ld+json') scripts.push(element);
  });
  for (const element of page.document.children) walk(isTag(element) ? element : null, (node) => {
    if (node.name === 'script' && node.attribs['type'] === 'application/ld+json' && !scripts.includes(node)) scripts.push(node);
  });
  for (const script of scripts) {
    try {
      const parsed = JSON.parse(textContent(script)) as JsonLd | JsonLd[];
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        out.push(item);
        if (Array.isArray(item['@graph'])) out.push(...(item['@graph'] as JsonLd[]));
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
function withoutSiteName(title: string): string {
  const parts = title.split(/\s+[|–—:-]\s+/);
  if (parts.length < 2) return title;
  return parts.reduce((longest, part) => (part.length > longest.length ? part : longest), '');
}

export function pageMetadata(page: PreparedPage, node: Element | null): PageMetadata {
  const meta = new Map<string, string>();
  walk(page.head, (element) => {
    if (element.name !== 'meta') return;
    const key = (element.attribs['property'] ?? element.attribs['name'] ?? element.attribs['itemprop'] ?? '').toLowerCase();
    const content = element.attribs['content'];
    if (key && content && !meta.has(key)) meta.set(key, content);
  });
  let headTitle: string | null = null;
  walk(page.head, (element) => {
    if (element.name === 'title' && headTitle === null) headTitle = clean(textContent(element));
  });
  const ld = jsonLdObjects(page);
  const ldValue = (key: keyof JsonLd) => ld.map((item) => item[key]).find((value) => value !== undefined && value !== null);

  // Title: the page's own headline element, as readers see it — the first heading (inside the
  // article first) whose words the declared title shares; else the declared title.
  const declaredTitles = [clean(nameOf(ldValue('headline'))), clean(meta.get('og:title')), headTitle].filter((t): t is string => t !== null);
  const headings = ['h1', 'h2', 'h3'].flatMap((tag) => {
    const all = page.elements.filter((element) => element.name === tag);
    const inside = node ? all.filter((h) => isInside(h, node)) : [];
    return [...inside, ...all.filter((h) => !inside.includes(h))];
  });
  let title: string | null = null;
  for (const heading of headings) {
    const text = clean(textContent(heading));
    if (text && text.length <= 300 && declaredTitles.some((declared) => covers(declared, text))) {
      title = text;
      break;
    }
  }
  title ??= clean(nameOf(ldValue('headline'))) ?? clean(meta.get('og:title')) ?? (headTitle ? withoutSiteName(headTitle) : null);

  let timeElement: string | null = null;
  for (const element of node ? [node] : []) walk(element, (child) => {
    if (child.name === 'time' && timeElement === null) timeElement = child.attribs['datetime'] ?? clean(textContent(child));
  });
  const byline = nameOf(ldValue('author')) ?? clean(meta.get('author')) ?? clean(meta.get('article:author')) ?? bylineInside(node);
  const image = ldValue('image');
  const imageUrl = typeof image === 'string' ? image : Array.isArray(image) ? (typeof image[0] === 'string' ? image[0] : nameOfUrl(image[0])) : nameOfUrl(image);
  const html = page.elements.find((element) => element.name === 'html');
  return {
    title,
    byline: byline && byline.length <= 120 ? byline : null,
    published: normalizeFeedDate(String(ldValue('datePublished') ?? meta.get('article:published_time') ?? meta.get('date') ?? timeElement ?? '')),
    modified: normalizeFeedDate(String(ldValue('dateModified') ?? meta.get('article:modified_time') ?? '')),
    language: clean(html?.attribs['lang']) ?? clean(meta.get('og:locale')),
    leadImage: absoluteUrl(meta.get('og:image') ?? imageUrl ?? null, page.url),
  };
}

function nameOfUrl(value: unknown): string | null {
  return value && typeof value === 'object' && 'url' in value && typeof (value as { url: unknown }).url === 'string' ? (value as { url: string }).url : null;
}

/** Most of the heading's words are in the declared title (which may add the site name). */
function covers(declared: string, heading: string): boolean {
  const declaredWords = new Set(declared.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const headingWords = heading.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (headingWords.length === 0) return false;
  const shared = headingWords.filter((word) => declaredWords.has(word)).length;
  return shared / headingWords.length >= 0.7 && shared / Math.max(1, declaredWords.size) >= 0.3;
}

/** An author element inside the article (the name itself), else a byline element. */
function bylineInside(node: Element | null): string | null {
  for (const pattern of [/\b(author|fn)\b/i, /\bbyline\b/i]) {
    let found: string | null = null;
    walk(node, (element) => {
      if (found) return;
      const label = `${element.attribs['class'] ?? ''} ${element.attribs['rel'] ?? ''} ${element.attribs['itemprop'] ?? ''}`;
      if (pattern.test(label)) found = clean(textContent(element).replace(/^\s*by\s+/i, '').split(/\s+[·|]\s+/)[0]);
    });
    if (found) return found;
  }
  return null;
}

/**
 * The page's `<link rel=canonical>`, absolute, or null: read from the same parse as everything
 * else (a capture is parsed once).
 */
export function canonicalLink(page: PreparedPage): string | null {
  let href: string | null = null;
  walk(page.head, (element) => {
    if (href === null && element.name === 'link' && /(^|\s)canonical(\s|$)/i.test(element.attribs['rel'] ?? '') && element.attribs['href']) href = element.attribs['href'];
  });
  return href && page.url ? absoluteUrl(href, page.url) : href;
}
