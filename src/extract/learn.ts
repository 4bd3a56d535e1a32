import { preparePage, type PreparedPage } from './dom.js';
import { extractFromPage } from './extract.js';
import { learnWrapper, type LearnResult } from './forest.js';
import { keywordCoverage, keywordDensity, pageOwnSignifiers, sharedKeywords, wordAgreement } from './guard.js';
import { pageTerms } from './significance.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { feedSignifiers, mergeSignifiers, metadataSignifiers, tfidfSignifiers, type Signifiers } from './signifiers.js';
import { termRules } from './terms.js';
import type { Wrapper } from './wrapper.js';

export interface SamplePage {
  input: Uint8Array | string | PreparedPage;
  url?: string | null;
  contentType?: string | null;
  feedTitle?: string | null;
  feedSummary?: string | null;
}

/** What the leave-one-out check found, and its verdict. */
export interface WrapperCheck {
  adopted: boolean;
  /** Held-out pages, and on how many the wrapper's object agreed with the single page's, held the page's keywords better, or worse. */
  checked: number;
  agreed: number;
  better: number;
  worse: number;
  /** The verdict in words, with its numbers (`forest learn`, the daemon's log, the wrapper's row). */
  reason: string;
}

export interface LearnedWrapper extends LearnResult {
  pages: PreparedPage[];
  /** The leave-one-out check of the learned wrapper; null when nothing was learned. */
  check: WrapperCheck | null;
  /**
   * A wrapper the check rejected: then `wrapper` is null (the template keeps single-page
   * extraction), or `current` when the new one lost what that one found.
   */
  rejected: Wrapper | null;
  /**
   * The wrapper learned is `current` again (it is not checked again), or it lost text `current`
   * found (keepsWhatCurrentFound; then `wrapper` is `current`, `rejected` the one learned).
   */
  unchanged: boolean;
}

/**
 * Two wrappers that select and clean the same way (their scores and sample counts aside; the
 * XPath is the selector's rendering for people, wrapper.ts' renderXPath: a wrapper stored before
 * its wording changed is the same wrapper).
 */
export const sameSelector = (a: Wrapper, b: Wrapper) => JSON.stringify({ ...a, relevance: 0, samples: 0, xpath: '' }) === JSON.stringify({ ...b, relevance: 0, samples: 0, xpath: '' });

/**
 * Learns a FOREST wrapper from sample pages of one template: signifiers are each page's top-k
 * tf-idf terms across the samples (FOREST §3.1, k = `signifiers`), joined by the feed item's own words
 * when there is one. The wrapper is then checked by leave-one-out against single-page
 * extraction, and adopted only when it agrees with it or improves on it (issue #10).
 */
export function learnFromSamples(samples: SamplePage[], options: { current?: Wrapper | null; thresholds?: ExtractorOptions } = {}): LearnedWrapper {
  const t = options.thresholds ?? EXTRACTOR_OPTIONS;
  const pages = samples.map((sample) =>
    typeof sample.input === 'object' && 'leaves' in sample.input ? sample.input : preparePage(sample.input, { url: sample.url ?? null, contentType: sample.contentType ?? null }));
  const tfidf = tfidfSignifiers(pages.map(pageTerms), t.signifiers);
  const signifiers = tfidf.map((fromTemplate, i) => mergeSignifiers(feedSignifiers(samples[i]!.feedTitle, samples[i]!.feedSummary, termRules(pages[i]!.language)), fromTemplate));
  const learned = learnWrapper(pages, signifiers, t);
  if (!learned.wrapper) return { ...learned, pages, check: null, rejected: null, unchanged: false };
  // The words most samples' own metadata share name the site, not the page (guard.ts).
  const siteTerms = sharedKeywords(pages.map((page, i) => ownSignifiers(page, samples[i]!)), t.siteKeywordShare);
  if (siteTerms.length > 0) learned.wrapper.siteTerms = siteTerms;
  // A re-learning that finds the active wrapper again was checked when that wrapper was adopted.
  if (options.current && sameSelector(learned.wrapper, options.current)) return { ...learned, pages, check: null, rejected: null, unchanged: true };
  const check = leaveOneOut(pages, samples, siteTerms, (held) => learnWrapper(pages.filter((_, i) => i !== held), signifiers.filter((_, i) => i !== held), t).wrapper, t);
  if (!check.adopted) return { ...learned, wrapper: null, pages, check, rejected: learned.wrapper, unchanged: false };
  if (!options.current) return { ...learned, pages, check, rejected: null, unchanged: false };
  const kept = keepsWhatCurrentFound(pages, samples, options.current, learned.wrapper, t);
  const verdict = { ...check, reason: `${check.reason}; ${kept.reason}` };
  return kept.adopted ? { ...learned, pages, check: verdict, rejected: null, unchanged: false } : { ...learned, wrapper: options.current, pages, check: verdict, rejected: learned.wrapper, unchanged: true };
}

/**
 * A re-learned wrapper replaces the active one only if it finds, on the samples, what the active
 * one found (issue #54, "wrappers that only help"): on each of the (newest, up to
 * `checkedPages`) samples, both wrappers' objects are held against the single page's — the
 * page's own evidence. A sample where the active wrapper's object agrees with it and the new
 * one's does not is text the new wrapper lost; one the other way round, text it gained. The new
 * wrapper is refused when it loses on more samples than `worseShare` allows, and than it gains.
 */
export function keepsWhatCurrentFound(pages: PreparedPage[], samples: SamplePage[], current: Wrapper, candidate: Wrapper, t: ExtractorOptions = EXTRACTOR_OPTIONS): { adopted: boolean; lost: number; gained: number; reason: string } {
  const planned = Math.min(pages.length, t.checkedPages);
  let lost = 0;
  let gained = 0;
  for (let i = 0; i < planned; i++) {
    const options = { feedTitle: samples[i]!.feedTitle ?? null, feedSummary: samples[i]!.feedSummary ?? null, thresholds: t, html: false, guard: false };
    const single = extractFromPage(pages[i]!, options).text;
    const agrees = (wrapper: Wrapper) => wordAgreement(extractFromPage(pages[i]!, { ...options, wrapper }).text, single) >= t.agreement;
    const [before, after] = [agrees(current), agrees(candidate)];
    if (before && !after) lost++;
    if (after && !before) gained++;
  }
  const adopted = lost <= Math.floor(t.worseShare * planned) || lost <= gained;
  const numbers = `on ${planned} samples it lost what the active wrapper found on ${lost}, found what that one lost on ${gained}`;
  return { adopted, lost, gained, reason: adopted ? `replaces the active wrapper (${numbers})` : `the active wrapper kept (${numbers})` };
}

/** What a page says about itself: its feed item's words, else its own metadata (as extraction reads it). */
const ownSignifiers = (page: PreparedPage, sample: SamplePage): Signifiers =>
  sample.feedTitle || sample.feedSummary ? feedSignifiers(sample.feedTitle, sample.feedSummary, termRules(page.language)) : metadataSignifiers(page);

/**
 * Each of the (newest) samples held out in turn: a wrapper learned on the others
 * (`learnWithout`) extracts it — the guard off, the wrapper judged alone — and so does
 * single-page extraction. The two objects agree, or the one holding more of what the page says
 * about itself (its feed item's words, else its title and description) — or, holding as much,
 * holding it more densely — is the better. The other samples' tf-idf signifiers were computed
 * with the held-out page among them: it only weighs their terms' rarity.
 */
export function leaveOneOut(pages: PreparedPage[], samples: SamplePage[], siteTerms: string[], learnWithout: (held: number) => Wrapper | null, t: ExtractorOptions = EXTRACTOR_OPTIONS): WrapperCheck {
  const count = { checked: 0, agreed: 0, better: 0, worse: 0 };
  if (pages.length < 2) return { adopted: true, ...count, reason: 'one sample: nothing to hold out' };
  const planned = Math.min(pages.length, t.checkedPages);
  // Worse on at most `worseShare` of the held-out pages: the per-page guard catches an odd page.
  const allowed = Math.floor(t.worseShare * planned);
  // Holding out stops once the verdict is settled — more worse pages than allowed, or too few
  // pages left to reach that — as each costs a learning and two extractions.
  const settled = () => count.worse > allowed || count.worse + (planned - count.checked) <= allowed;
  for (let held = 0; held < planned && !settled(); held++) {
    const wrapper = learnWithout(held);
    const page = pages[held]!;
    const sample = samples[held]!;
    const options = { feedTitle: sample.feedTitle ?? null, feedSummary: sample.feedSummary ?? null, thresholds: t, html: false };
    const single = extractFromPage(page, options);
    const wrapped = wrapper ? extractFromPage(page, { ...options, wrapper, guard: false }) : single;
    count.checked++;
    // The objects agree (F1 over their words `agreement` or more): one article, give or take a caption or a deck.
    if (wordAgreement(wrapped.text, single.text) >= t.agreement) {
      count.agreed++;
      continue;
    }
    const own = pageOwnSignifiers(ownSignifiers(page, sample), siteTerms);
    // Both holding the same share of the page's keywords (a comment thread that names the story
    // once, beside the story), the one speaking of them more densely is the article.
    const difference = keywordCoverage(page, own, wrapped.text) - keywordCoverage(page, own, single.text)
      || keywordDensity(page, own, wrapped.text) - keywordDensity(page, own, single.text);
    if (difference > 0) count.better++;
    else if (difference < 0) count.worse++;
  }
  const adopted = count.worse <= allowed;
  const unchecked = planned - count.checked;
  const numbers = `${count.checked} held out: ${count.agreed} agree with the single page, ${count.better} hold the page's own words better, ${count.worse} worse`
    + (unchecked > 0 ? `; ${unchecked} more could not change the verdict` : '');
  return { adopted, ...count, reason: `${adopted ? 'adopted' : 'rejected'} by leave-one-out (${numbers})` };
}
