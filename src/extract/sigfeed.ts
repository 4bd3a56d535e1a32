import type { Element } from 'domhandler';
import { namesItselfComments } from './clean.js';
import { holdsElement, parentElement, type PreparedPage } from './dom.js';
import { significantLeaves } from './significance.js';
import type { Signifiers } from './signifiers.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';

/**
 * SIGFEED (thesis ch. 2 §5, Algorithm 1): significant leaves grouped by their lowest common
 * block ancestor; a block's relevance is Σ over its significant leaves of matches / text length;
 * the most relevant block is the article. 3-grams first, keywords when no 3-gram matches.
 */

const BLOCKS = new Set(['div', 'article', 'section', 'main', 'td', 'body']);

/**
 * Elements that make a `<div>` around them more than a paragraph: Readability.js's
 * DIV_TO_P_ELEMS. A `<div>` holding none of them (a blog editor writes each paragraph as a bare
 * `<div>`) is a paragraph, so it is no block of its own: the body around it, holding all the
 * paragraphs, is — as Readability.js turns such a `<div>` into a `<p>` before scoring. Otherwise the
 * one paragraph that says the title's words is taken for the article (sites-2012: a blog's post
 * whose lede alone named the title lost its other paragraphs, 0.37 recall).
 */
const PARAGRAPH_BREAKERS = new Set(['blockquote', 'dl', 'div', 'img', 'ol', 'p', 'pre', 'table', 'ul']);

const isBlock = (element: Element) =>
  BLOCKS.has(element.name) && (element.name !== 'div' || holdsElement(element, (descendant) => PARAGRAPH_BREAKERS.has(descendant.name)));

function lowestBlock(element: Element): Element {
  let node: Element = element;
  while (!isBlock(node) && node.parent && node.parent.type === 'tag') node = node.parent as Element;
  return node;
}

function insideLink(element: Element): boolean {
  for (let node: Element | null = element; node; node = parentElement(node)) {
    if (node.name === 'a') return true;
    if (BLOCKS.has(node.name)) return false;
  }
  return false;
}

const CHROME = new Set(['footer', 'nav', 'header', 'aside']);
const CHROME_ROLES = /^(contentinfo|navigation|banner|complementary)$/;

/** Inside the page's footer, navigation, masthead or sidebar, as HTML5 or ARIA marks them. */
function insidePageChrome(element: Element): boolean {
  for (let node: Element | null = element; node; node = parentElement(node)) {
    if (node.name === 'article' || node.name === 'main') return false;
    if (CHROME.has(node.name) || CHROME_ROLES.test(node.attribs['role'] ?? '')) return true;
  }
  return false;
}

/**
 * Inside a comment thread, as the thread names itself. Readers quote the title and repeat its
 * words, and a theme that writes comments as bare list items pools all their mentions on the
 * thread's container, which then outweighs a short post (issue #54: a WordPress post of 400 words
 * beside a longer thread, a Blogger post of 80): the thread is the readers', never the article, so
 * its leaves are no evidence of where the article is. Cleaning leaves a thread out of the object
 * by the same names (clean.ts).
 */
function insideCommentThread(element: Element): boolean {
  for (let node: Element | null = element; node; node = parentElement(node)) {
    if (node.name === 'body') return false;
    if (namesItselfComments(node)) return true;
  }
  return false;
}

export interface SigfeedResult {
  node: Element;
  relevance: number;
  mode: 'trigrams' | 'keywords';
}

export function sigfeed(page: PreparedPage, signifiers: Signifiers, t: ExtractorOptions = EXTRACTOR_OPTIONS): SigfeedResult | null {
  // Signifiers from the page's own metadata (a teaser, a title) are weak: their 3-grams find the
  // teaser box, not the body. With them, keywords are summed over the block, without dividing by
  // leaf length — FOREST's COVERAGE (§3.5) rather than SIGFEED's density — so that the block
  // holding most of the title's words across many paragraphs wins.
  const coverage = signifiers.source !== 'feed';
  const modes = coverage ? (['keywords'] as const) : (['trigrams', 'keywords'] as const);
  for (const mode of modes) {
    if (mode === 'trigrams' && signifiers.trigrams.size === 0) continue;
    if (mode === 'keywords' && signifiers.keywords.size === 0) continue;
    const leaves = significantLeaves(page, signifiers, mode);
    if (leaves.length === 0) continue;
    const relevance = new Map<Element, number>();
    for (const { leaf, matches, matched } of leaves) {
      // Links and short labels are navigation (headline lists, related boxes) more often than
      // article text, which comes in sentences.
      if (coverage && (insideLink(leaf.element) || leaf.words.length < t.sentenceWords || insidePageChrome(leaf.element))) continue;
      if (insideCommentThread(leaf.element)) continue;
      const block = lowestBlock(leaf.element);
      const length = Math.max(1, leaf.node.data.trim().length);
      // COVERAGE counts the signifiers a text holds (FOREST §3.5, eq. 6), each once: a copyright
      // line saying the site's name eight times is one match, not eight (issue #54: it outweighed
      // the story beside it). Summed over the block's leaves, as before.
      relevance.set(block, (relevance.get(block) ?? 0) + (coverage ? new Set(matched).size : matches / length));
    }
    let best: SigfeedResult | null = null;
    for (const [node, value] of relevance) if (!best || value > best.relevance) best = { node, relevance: value, mode };
    // Every match in a comment thread: the keywords may still point at the article.
    if (best) return best;
  }
  return null;
}
