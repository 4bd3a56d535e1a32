import { preparePage, type PreparedPage } from './dom.js';
import { learnWrapper, type LearnResult } from './forest.js';
import { pageTerms } from './significance.js';
import { feedSignifiers, mergeSignifiers, tfidfSignifiers } from './signifiers.js';

export interface SamplePage {
  input: Uint8Array | string | PreparedPage;
  url?: string | null;
  contentType?: string | null;
  feedTitle?: string | null;
  feedSummary?: string | null;
}

/** k of FOREST §3.1: signifiers per page. */
const DEFAULT_SIGNIFIERS = 10;

/**
 * Learns a FOREST wrapper from sample pages of one template: signifiers are each page's top-k
 * tf-idf terms across the samples (FOREST §3.1, k = 10), joined by the feed item's own words
 * when there is one.
 */
export function learnFromSamples(samples: SamplePage[], k = DEFAULT_SIGNIFIERS): LearnResult & { pages: PreparedPage[] } {
  const pages = samples.map((sample) =>
    typeof sample.input === 'object' && 'leaves' in sample.input ? sample.input : preparePage(sample.input, { url: sample.url ?? null, contentType: sample.contentType ?? null }));
  const tfidf = tfidfSignifiers(pages.map(pageTerms), k);
  const signifiers = tfidf.map((fromTemplate, i) => mergeSignifiers(feedSignifiers(samples[i]!.feedTitle, samples[i]!.feedSummary), fromTemplate));
  return { ...learnWrapper(pages, signifiers), pages };
}
