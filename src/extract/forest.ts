import type { Element } from 'domhandler';
import { pageBlockKeys } from './blocks.js';
import { learnDeckSlot } from './deck.js';
import { parentElement, type PreparedPage } from './dom.js';
import { informativeness, jeffreysDensity, relevance, unexpectedness } from './scores.js';
import { significantLeaves, termCounts } from './significance.js';
import type { Signifiers } from './signifiers.js';
import { elementType, matchWrapper, renderXPath, typeAttributes, type Wrapper } from './wrapper.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { cached } from '../util/cached.js';

/**
 * FOREST (forest-paper.txt §3; thesis ch. 2 §6): over sample pages of one template, the
 * elements on significant terminal paths are grouped into structural patterns (element type,
 * level); each is scored by informativeness I = J × U per page and ranked by
 * R = Σ I × p × level (Algorithm 1). The best becomes the wrapper.
 */

export interface RankedPattern {
  type: string;
  level: number;
  pages: number;
  /** Means over the pages where the pattern occurs. */
  J: number;
  U: number;
  I: number;
  R: number;
  xpath: string;
}

export interface LearnResult {
  wrapper: Wrapper | null;
  patterns: RankedPattern[];
}

/** Too high to discriminate anything (FOREST §3.4's level factor penalises them; we skip them). */
const NEVER_WRAPPERS = new Set(['html', 'body']);

interface Occurrence {
  tag: string;
  attributes: Record<string, string>;
  level: number;
  type: string;
  perPage: Map<number, { I: number; J: number; U: number; dfs: number }>;
}

/** One page's best score per pattern (element type at a level), with what the pattern is. */
type PageScores = Map<string, { tag: string; attributes: Record<string, string>; level: number; type: string; I: number; J: number; U: number; dfs: number }>;

/**
 * The elements on one page's significant terminal paths, grouped into patterns and scored
 * (FOREST §3.2–3.3). A function of the page and its signifiers alone, so it is kept per page and
 * signifiers: the leave-one-out check learns again on the same pages with the same signifiers.
 */
const scoresOfPage = new WeakMap<PreparedPage, WeakMap<Signifiers, PageScores>>();
function pageScores(page: PreparedPage, signifiers: Signifiers): PageScores {
  return cached(cached(scoresOfPage, page, () => new WeakMap<Signifiers, PageScores>()), signifiers, () => scoresOf(page, signifiers));
}

function scoresOf(page: PreparedPage, signifiers: Signifiers): PageScores {
  const scores: PageScores = new Map();
  if (signifiers.keywords.size === 0) return scores;
  const { counts, X, Y } = termCounts(page, signifiers.keywords);
  const onPaths = new Set<Element>();
  for (const { leaf } of significantLeaves(page, signifiers, 'keywords')) {
    for (let element: Element | null = leaf.element; element; element = parentElement(element)) {
      if (onPaths.has(element)) break;
      onPaths.add(element);
    }
  }
  for (const element of onPaths) {
    const dfs = page.dfs.get(element);
    const level = dfs === undefined ? undefined : page.depths[dfs];
    const count = counts.get(element);
    if (dfs === undefined || level === undefined || !count || NEVER_WRAPPERS.has(element.name)) continue;
    const type = elementType(element);
    const key = `${type}@${level}`;
    const I = informativeness(count.x, count.y, X, Y);
    const previous = scores.get(key);
    if (!previous || I > previous.I) {
      scores.set(key, { tag: element.name, attributes: previous?.attributes ?? typeAttributes(element), level, type, I, J: jeffreysDensity(count.x, count.y), U: unexpectedness(count.x, count.y, X, Y), dfs });
    }
  }
  return scores;
}

export function learnWrapper(pages: PreparedPage[], signifiers: Signifiers[], t: ExtractorOptions = EXTRACTOR_OPTIONS): LearnResult {
  const patterns = new Map<string, Occurrence>();
  pages.forEach((page, k) => {
    for (const [key, score] of pageScores(page, signifiers[k]!)) {
      let occurrence = patterns.get(key);
      if (!occurrence) {
        occurrence = { tag: score.tag, attributes: score.attributes, level: score.level, type: score.type, perPage: new Map() };
        patterns.set(key, occurrence);
      }
      occurrence.perPage.set(k, { I: score.I, J: score.J, U: score.U, dfs: score.dfs });
    }
  });

  const ranked = [...patterns.values()].map((occurrence) => {
    const values = [...occurrence.perPage.values()];
    const mean = (pick: (v: { I: number; J: number; U: number }) => number) => values.reduce((sum, v) => sum + pick(v), 0) / values.length;
    const dfs = Object.keys(occurrence.attributes).length === 0 ? [...new Set(values.map((v) => v.dfs))].sort((a, b) => a - b) : [];
    const xpath = renderXPath(occurrence.type, dfs);
    return {
      occurrence,
      dfs,
      pattern: {
        type: occurrence.type,
        level: occurrence.level,
        pages: values.length,
        J: mean((v) => v.J),
        U: mean((v) => v.U),
        I: mean((v) => v.I),
        R: relevance(values.map((v) => v.I), occurrence.level),
        xpath,
      },
    };
  }).sort((a, b) => b.pattern.R - a.pattern.R);

  const best = ranked[0];
  if (!best || best.pattern.R <= 0) return { wrapper: null, patterns: ranked.map((r) => r.pattern) };
  const wrapper: Wrapper = {
    type: best.occurrence.type,
    tag: best.occurrence.tag,
    attributes: best.occurrence.attributes,
    dfs: best.dfs,
    level: best.occurrence.level,
    xpath: best.pattern.xpath,
    relevance: best.pattern.R,
    samples: pages.length,
    templateBlocks: [],
  };
  wrapper.templateBlocks = recurringBlocks(pages, wrapper, t.templateShare);
  const deck = learnDeckSlot(pages.map((page) => ({ page, node: matchWrapper(page, wrapper)[0] })), t);
  if (deck) wrapper.deck = deck;
  return { wrapper, patterns: ranked.map((r) => r.pattern) };
}

/**
 * Blocks inside the wrapped node whose text recurs across the sample pages: the template's
 * (related links, share bars, sign-up boxes), not the article's — what only several pages of
 * one template can tell.
 */
export function recurringBlocks(pages: PreparedPage[], wrapper: Wrapper, share: number): string[] {
  if (pages.length < 2) return [];
  const seen = new Map<string, number>();
  for (const page of pages) {
    const node = matchWrapper(page, wrapper)[0];
    if (!node) continue;
    for (const key of pageBlockKeys(page, node)) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const needed = Math.max(2, Math.ceil(share * pages.length));
  return [...seen].filter(([, count]) => count >= needed).map(([key]) => key);
}
