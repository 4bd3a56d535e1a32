import type { Element } from 'domhandler';
import type { PreparedPage } from './dom.js';
import { significantLeaves } from './significance.js';
import type { Signifiers } from './signifiers.js';

/**
 * SIGFEED (thesis ch. 2 §5, Algorithm 1): significant leaves grouped by their lowest common
 * block ancestor; a block's relevance is Σ over its significant leaves of matches / text length;
 * the most relevant block is the article. 3-grams first, keywords when no 3-gram matches.
 */

const BLOCKS = new Set(['div', 'article', 'section', 'main', 'td', 'body']);

function lowestBlock(element: Element): Element {
  let node: Element = element;
  while (!BLOCKS.has(node.name) && node.parent && node.parent.type === 'tag') node = node.parent as Element;
  return node;
}

export interface SigfeedResult {
  node: Element;
  relevance: number;
  mode: 'trigrams' | 'keywords';
}

export function sigfeed(page: PreparedPage, signifiers: Signifiers): SigfeedResult | null {
  for (const mode of ['trigrams', 'keywords'] as const) {
    if (mode === 'trigrams' && signifiers.trigrams.size === 0) continue;
    if (mode === 'keywords' && signifiers.keywords.size === 0) continue;
    const leaves = significantLeaves(page, signifiers, mode);
    if (leaves.length === 0) continue;
    const relevance = new Map<Element, number>();
    for (const { leaf, matches } of leaves) {
      const block = lowestBlock(leaf.element);
      const length = Math.max(1, leaf.node.data.trim().length);
      relevance.set(block, (relevance.get(block) ?? 0) + matches / length);
    }
    let best: SigfeedResult | null = null;
    for (const [node, value] of relevance) if (!best || value > best.relevance) best = { node, relevance: value, mode };
    return best;
  }
  return null;
}
