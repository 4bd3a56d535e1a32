import type { Element } from 'domhandler';
import { textContent } from 'domutils';
import type { PreparedPage } from './dom.js';
import { siteEvidence, withoutSiteNames } from './metadata.js';
import { ENGLISH, termRules, terms, words, type TermRules } from './terms.js';
import { EXTRACTOR_OPTIONS } from './options.js';

/**
 * Signifiers: the words that point at the article (docs/architecture.md §5; thesis ch. 2 §4, FOREST §3.1).
 * Word 3-grams are precise (they come from the title and the first lines, as written); stemmed
 * keywords are the fallback when no 3-gram matches.
 */
export interface Signifiers {
  trigrams: Set<string>;
  keywords: Set<string>;
  source: 'feed' | 'metadata' | 'tf-idf' | 'none';
  /** Of the keywords, those of the page's declared titles (metadata signifiers only). */
  titleKeywords?: Set<string>;
}

export const NO_SIGNIFIERS: Signifiers = { trigrams: new Set(), keywords: new Set(), source: 'none' };

export function trigramsOf(list: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 2 < list.length; i++) out.push(`${list[i]} ${list[i + 1]} ${list[i + 2]}`);
  return out;
}

const stripHtml = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/&[a-z#0-9]+;/gi, ' ');

/** From a feed item: title + description, HTML stripped. */
export function feedSignifiers(title: string | null | undefined, summary: string | null | undefined, rules: TermRules = ENGLISH): Signifiers {
  const texts = [title ?? '', stripHtml(summary ?? '')].filter((text) => text.trim() !== '');
  if (texts.length === 0) return NO_SIGNIFIERS;
  return {
    trigrams: new Set(texts.flatMap((text) => trigramsOf(words(text)))),
    keywords: new Set(texts.flatMap((text) => terms(text, rules))),
    source: 'feed',
  };
}

function metaContent(page: PreparedPage, test: (element: Element) => boolean): string[] {
  return page.declarations
    .filter(test)
    .map((element) => (element.name === 'title' || element.name === 'script' ? textContent(element) : (element.attribs['content'] ?? '')))
    .filter((text) => text.trim() !== '');
}

/**
 * Headline and description strings a page declares about itself. A declared title loses the
 * site's name it carries: the name the page gives its site where it leads or ends the title
 * (metadata.ts siteEvidence), else the longest part ("Headline - Site.com - News", as Readability.js's
 * title heuristic does): the site's name is on every page of the site, in its header and footer
 * too, and as a signifier it points SIGFEED at the copyright line.
 */
export function pageMetadataTexts(page: PreparedPage): string[] {
  return [...pageTitles(page), ...pageDescriptions(page)];
}

/** The page's descriptions (og:, twitter:, meta) and its JSON-LD headline and description. */
function pageDescriptions(page: PreparedPage): string[] {
  const texts = metaContent(page, (element) => element.name === 'meta' && /^(og:description|twitter:description|description)$/i.test(metaName(element)));
  for (const script of metaContent(page, (element) => element.name === 'script' && element.attribs['type'] === 'application/ld+json')) {
    for (const match of script.matchAll(/"(?:headline|description)"\s*:\s*"((?:[^"\\]|\\.)*)"/g)) texts.push(match[1]!);
  }
  return texts;
}

const metaName = (element: Element) => element.attribs['property'] ?? element.attribs['name'] ?? '';

/** The titles a page declares (`<title>`, og:title, twitter:title), without the site's name. */
function pageTitles(page: PreparedPage): string[] {
  const evidence = siteEvidence(page);
  return metaContent(page, (element) =>
    element.name === 'title' || (element.name === 'meta' && /^(og:title|twitter:title)$/i.test(metaName(element)))).map((title) => withoutSiteNames(title, evidence));
}

/** From the page's own metadata when there is no feed item. */
export function metadataSignifiers(page: PreparedPage): Signifiers {
  // The site's evidence (siteEvidence) behind the titles is read once: it parses the page's links.
  const titles = pageTitles(page).map(stripHtml);
  const texts = [...titles, ...pageDescriptions(page).map(stripHtml)];
  if (texts.length === 0) return NO_SIGNIFIERS;
  const rules = termRules(page.language);
  return {
    trigrams: new Set(texts.flatMap((text) => trigramsOf(words(text)))),
    keywords: new Set(texts.flatMap((text) => terms(text, rules))),
    source: 'metadata',
    titleKeywords: new Set(titles.flatMap((text) => terms(text, rules))),
  };
}

/**
 * tf-idf over the sample pages of one template: the top-k terms of each page (FOREST §3.1,
 * k = 10). Terms shared by every page (the template's own words) get idf 0 and never qualify.
 */
export function tfidfSignifiers(pageTerms: string[][], k = EXTRACTOR_OPTIONS.signifiers): Signifiers[] {
  const documentFrequency = new Map<string, number>();
  for (const list of pageTerms) for (const term of new Set(list)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const n = pageTerms.length;
  return pageTerms.map((list) => {
    const tf = new Map<string, number>();
    for (const term of list) tf.set(term, (tf.get(term) ?? 0) + 1);
    const scored = [...tf].map(([term, count]) => [term, count * Math.log(n / documentFrequency.get(term)!)] as const).filter(([, score]) => score > 0);
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return { trigrams: new Set<string>(), keywords: new Set(scored.slice(0, k).map(([term]) => term)), source: 'tf-idf' as const };
  });
}

export function mergeSignifiers(a: Signifiers, b: Signifiers): Signifiers {
  if (a.source === 'none') return b;
  if (b.source === 'none') return a;
  return { trigrams: new Set([...a.trigrams, ...b.trigrams]), keywords: new Set([...a.keywords, ...b.keywords]), source: a.source };
}
