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

/** The words of `part` that `whole` does not hold, each word of `whole` holding one occurrence (bags of words). */
function wordsNotIn(part: string, whole: string): string[] {
  const bag = new Map<string, number>();
  for (const word of words(whole)) bag.set(word, (bag.get(word) ?? 0) + 1);
  return words(part).filter((word) => {
    const left = bag.get(word) ?? 0;
    if (left > 0) bag.set(word, left - 1);
    return left === 0;
  });
}

/** The share of `part`'s words (as a bag) that `whole` holds too: 1 when `whole` says all `part` says. */
export function wordContainment(part: string, whole: string): number {
  const total = words(part).length;
  return total === 0 ? 1 : 1 - wordsNotIn(part, whole).length / total;
}

export const wordCount = (text: string) => countWordRuns(text.toLowerCase());

/** A page's two objects, and what betterSupported may ask of the wrapper's node. */
export interface BothObjects {
  wrapper: string;
  single: string;
  /** Whether the wrapper's node holds `wrapperRunShare` of the page's running text. */
  wrapperHoldsRun: boolean;
  /** The text of the wrapper's node outside its links (asked only when its object holds the single page's and more). */
  wrapperUnlinked: () => string;
}

export interface SupportOptions {
  /** Two objects whose words agree this much are one article (ExtractorOptions.agreement). */
  agreement: number;
  /** An article's worth of words (ExtractorOptions.minWords): less added is a caption or a deck, not a disagreement. */
  minWords: number;
  /** Added words speaking of the page's subject at less than this share of the rate of the object they extend are about something else (ExtractorOptions.addedDensityShare). */
  addedDensityShare: number;
  /** Added words more than this share the text of links are a list of links (ExtractorOptions.linkListDensity). */
  linkListDensity: number;
}

/**
 * Which of two objects of one page — a wrapper's and the single page's — the page's own words
 * support better, when they disagree (issue #69): 'wrapper', or why the single page's stands.
 * Text about a page's subject names it — SIGFEED's relevance, its signifiers' density (thesis
 * ch. 2 §5) — and the article is where those words concentrate:
 * - the wrapper's object holds the single page's and more: the added words belong to the
 *   article when they name its subject at `addedDensityShare` of the single page's rate or more
 *   (the rest of the story, a second section); below that they are about other things (a
 *   teaser list, a comment thread, the next story), and the single page's object stands. So it
 *   does when the added words are mostly the text of links (`linkListDensity`, cleaning's own
 *   measure of a link list): a list of other pages, which may name the subject densely — a
 *   "recent stories" box lists the article's own headline — without being prose about it;
 * - the single page's object holds the wrapper's and more: it stands when it holds as many of
 *   the page's own keywords and either the wrapper's node held little of the page's running text
 *   (`wrapperHoldsRun` false: a lede box, a gallery's first caption) or the words it adds name the
 *   subject as above. The test of added words is not asked alone here: the signifiers come from
 *   the page's summary, and a wrapper's object that is that summary (a lede box) names the
 *   subject more densely than any story body does;
 * - neither holds the other (two blocks): the one holding more of the page's own keywords.
 * Without evidence — no keyword of the page in the object added to — the wrapper stands: the
 * template's structure is then the better witness.
 */
export function betterSupported(page: PreparedPage, signifiers: Signifiers, objects: BothObjects, t: SupportOptions): 'wrapper' | string {
  const { wrapper, single } = objects;
  if (wordAgreement(wrapper, single) >= t.agreement) return 'wrapper';
  const [wrapperWords, singleWords] = [wordCount(wrapper), wordCount(single)];
  const addsTo = (larger: string, smaller: string, largerWords: number, smallerWords: number) =>
    largerWords - smallerWords >= t.minWords && wordContainment(smaller, larger) >= t.agreement;
  /** Whether the words `added` to `smaller` name the page's subject; null without evidence. */
  const addedOnSubject = (added: readonly string[], smaller: string): boolean | null => {
    const base = keywordDensity(page, signifiers, smaller);
    return base === 0 ? null : keywordDensity(page, signifiers, added.join(' ')) >= t.addedDensityShare * base;
  };
  if (addsTo(wrapper, single, wrapperWords, singleWords)) {
    const added = wordsNotIn(wrapper, single);
    const linked = added.length - Math.min(added.length, wordsNotIn(objects.wrapperUnlinked(), single).length);
    if (linked > t.linkListDensity * added.length) return `its object added ${added.length} words to the single page's, ${Math.round((100 * linked) / added.length)}% of them the text of links`;
    return addedOnSubject(added, single) === false ? `its object added ${wrapperWords - singleWords} words to the single page's that seldom name the page's subject` : 'wrapper';
  }
  const [wrapperCovers, singleCovers] = [keywordCoverage(page, signifiers, wrapper), keywordCoverage(page, signifiers, single)];
  if (addsTo(single, wrapper, singleWords, wrapperWords)) {
    const leftOut = singleCovers >= wrapperCovers && (!objects.wrapperHoldsRun || addedOnSubject(wordsNotIn(single, wrapper), wrapper) === true);
    return leftOut ? `its object held ${wrapperWords} words of a page whose single-page object holds them and ${singleWords - wrapperWords} more` : 'wrapper';
  }
  return singleCovers > wrapperCovers ? `its object held ${Math.round(100 * wrapperCovers)}% of the page's own keywords, another block ${Math.round(100 * singleCovers)}%` : 'wrapper';
}

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
