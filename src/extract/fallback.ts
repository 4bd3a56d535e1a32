import { isTag, isText, type AnyNode, type Element } from 'domhandler';
import { lowestCommonAncestor, type PreparedPage } from './dom.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { countWordRuns } from './terms.js';
import { cached } from '../util/cached.js';

/**
 * Fallback when signifiers are weak: maximum subsequence segmentation (mss-paper.txt, the
 * simple baseline). The page is read as a sequence of tokens, each word scoring +1 and each tag
 * −3.25 (`mssWord`, `mssTag`); the article is the contiguous run with the maximum sum (Kadane). Its text leaves are
 * mapped back to their lowest common ancestor so that the rest of the pipeline (cleaning,
 * rendering) works on a DOM node.
 */

export function maximumSubsequence(scores: readonly number[]): { start: number; end: number; sum: number } {
  let best = { start: 0, end: -1, sum: 0 };
  let start = 0;
  let sum = 0;
  scores.forEach((score, i) => {
    if (sum <= 0) {
      start = i;
      sum = 0;
    }
    sum += score;
    if (sum > best.sum) best = { start, end: i, sum };
  });
  return best;
}

export function mssNode(page: PreparedPage, t: ExtractorOptions = EXTRACTOR_OPTIONS): Element | null {
  // Kept per page and thresholds: single-page extraction and the merging of a body's parts both ask.
  return cached(cached(runs, t, () => new WeakMap<PreparedPage, Element | null>()), page, () => mainRun(page, t));
}

const runs = new WeakMap<ExtractorOptions, WeakMap<PreparedPage, Element | null>>();

function mainRun(page: PreparedPage, t: ExtractorOptions): Element | null {
  const body = page.elements.find((element) => element.name === 'body') ?? page.elements[0];
  if (!body) return null;
  const scores: number[] = [];
  const owners: Array<Element | null> = [];
  const visit = (node: AnyNode) => {
    if (isTag(node)) {
      if (!page.dfs.has(node)) return; // dropped during preparation (dfs numbers the elements kept)
      scores.push(t.mssTag);
      owners.push(null);
      for (const child of node.children) visit(child);
      scores.push(t.mssTag);
      owners.push(null);
    } else if (isText(node) && node.parent && isTag(node.parent)) {
      // A text's words, one token scoring theirs together: with words scoring above zero the best
      // run never splits a text (taking the rest of it only adds), so the run is the paper's, from
      // a token per text instead of one per word (pages hold thousands).
      const count = countWordRuns(node.data);
      if (count > 0) {
        scores.push(count * t.mssWord);
        owners.push(node.parent);
      }
    }
  };
  visit(body);
  const run = maximumSubsequence(scores);
  let node: Element | null = null;
  let previous: Element | null = null;
  for (let i = run.start; i <= run.end; i++) {
    const owner = owners[i];
    // Texts of one element share their owner: its ancestor is taken once.
    if (!owner || owner === previous) continue;
    previous = owner;
    node = node ? lowestCommonAncestor(node, owner) : owner;
  }
  return node;
}
