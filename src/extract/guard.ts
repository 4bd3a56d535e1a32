import type { PreparedPage } from './dom.js';
import { pageTermSet } from './significance.js';
import type { Signifiers } from './signifiers.js';
import { countWordRuns, termRules, terms, words } from './terms.js';

/**
 * Whether an object holds what its page says about itself (issue #10's per-page guard and the
 * wrapper's leave-one-out check). A page states what it is about in its own words: the feed
 * item's title and description, or without them its title and description metadata (the
 * signifiers of SIGFEED, thesis ch. 2 §5). An article object keeps those words; a template
 * block a wrapper matched by mistake (a comment list, a sidebar, a teaser list) does not. The
 * measure is the share of those keywords, among the ones the page's body holds at all, that the
 * object's text holds.
 */

/** Share of the page's keywords found anywhere in its body that the object's text holds (1 when there are none to hold). */
export function keywordCoverage(page: PreparedPage, signifiers: Signifiers, text: string): number {
  if (signifiers.keywords.size === 0) return 1;
  const onPage = pageTermSet(page);
  const wanted = [...signifiers.keywords].filter((keyword) => onPage.has(keyword));
  if (wanted.length === 0) return 1;
  const held = new Set(terms(text, termRules(page.language)));
  return wanted.filter((keyword) => held.has(keyword)).length / wanted.length;
}

/** Occurrences of the page's keywords per word of the text: how densely it speaks of what the page is about (SIGFEED's relevance, thesis ch. 2 §5). */
export function keywordDensity(page: PreparedPage, signifiers: Signifiers, text: string): number {
  const held = terms(text, termRules(page.language));
  const total = words(text).length;
  return total === 0 ? 0 : held.filter((term) => signifiers.keywords.has(term)).length / total;
}

/** How far two texts say the same (F1 over their bags of words): 1 for the same words, 0 for none in common. */
export function wordAgreement(a: string, b: string): number {
  const count = (text: string) => {
    const bag = new Map<string, number>();
    for (const word of words(text)) bag.set(word, (bag.get(word) ?? 0) + 1);
    return bag;
  };
  const [bagA, bagB] = [count(a), count(b)];
  let shared = 0;
  for (const [word, n] of bagA) shared += Math.min(n, bagB.get(word) ?? 0);
  const total = [...bagA.values()].reduce((sum, n) => sum + n, 0) + [...bagB.values()].reduce((sum, n) => sum + n, 0);
  return total === 0 ? 1 : (2 * shared) / total;
}

/** The share of `part`'s words (as a bag) that `whole` holds too: 1 when `whole` says all `part` says. */
export function wordContainment(part: string, whole: string): number {
  const bag = new Map<string, number>();
  for (const word of words(whole)) bag.set(word, (bag.get(word) ?? 0) + 1);
  let held = 0;
  let total = 0;
  for (const word of words(part)) {
    total++;
    const left = bag.get(word) ?? 0;
    if (left > 0) {
      held++;
      bag.set(word, left - 1);
    }
  }
  return total === 0 ? 1 : held / total;
}

export const wordCount = (text: string) => countWordRuns(text.toLowerCase());

/** The signifiers without the site's own words (the keywords most of a template's pages share in their metadata). */
export function pageOwnSignifiers(signifiers: Signifiers, siteTerms: readonly string[] | undefined): Signifiers {
  if (!siteTerms || siteTerms.length === 0) return signifiers;
  const site = new Set(siteTerms);
  return { ...signifiers, keywords: new Set([...signifiers.keywords].filter((keyword) => !site.has(keyword))) };
}

/** Keywords that at least `share` of the pages' signifiers hold (and two pages at least): the site's, not a page's. */
export function sharedKeywords(signifiers: Signifiers[], share: number): string[] {
  const counts = new Map<string, number>();
  for (const { keywords } of signifiers) for (const keyword of keywords) counts.set(keyword, (counts.get(keyword) ?? 0) + 1);
  const needed = Math.max(2, Math.ceil(share * signifiers.length));
  return [...counts].filter(([, n]) => n >= needed).map(([keyword]) => keyword).sort();
}
