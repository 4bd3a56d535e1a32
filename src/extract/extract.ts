import { createHash } from 'node:crypto';
import type { Element } from 'domhandler';
import { escapeUTF8 } from 'entities';
import { linkWords, unlinkedText } from './blocks.js';
import { boilerplateInside, isTeaserList, namesItselfBoilerplate, namesItselfComments, ALWAYS_SKIPPED } from './clean.js';
import { betterSupported, keywordCoverage, pageOwnSignifiers, wordCount } from './guard.js';
import { deckBefore } from './deck.js';
import { depthOf, isInside, lowestCommonAncestor, parentElement, type PreparedPage, preparePage, textOf } from './dom.js';
import { mssNode } from './fallback.js';
import { holdsHeadline, pageHeadline, pageMetadata } from './metadata.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { articleText, regionHtml, sanitizedHtml } from './render.js';
import { leafTerms } from './significance.js';
import { feedSignifiers, metadataSignifiers, type Signifiers } from './signifiers.js';
import { sigfeed, type SigfeedResult } from './sigfeed.js';
import { termRules } from './terms.js';
import { elementType, matchWrapper, typeAttributes, type Wrapper } from './wrapper.js';
import { cached } from '../util/cached.js';

/** The article object of a page (docs/architecture.md §5, "The article object"). */
export interface ArticleObject {
  title: string | null;
  byline: string | null;
  published: string | null;
  modified: string | null;
  html: string;
  text: string;
  leadImage: string | null;
  language: string | null;
  method: 'forest' | 'sigfeed' | 'fallback' | 'none';
  /** XPath of the wrapper used (method forest). */
  wrapper: string | null;
  /** Why nothing was extracted (method none), or why a wrapper's result was set aside for the single page's. */
  reason: string | null;
  /**
   * A digest of what the object's normalized form is made from (objectSource): two extractions
   * with the same source have the same normalized object. Null when no HTML was made.
   */
  source: string | null;
}

export interface ExtractOptions {
  url?: string | null;
  contentType?: string | null;
  feedTitle?: string | null;
  feedSummary?: string | null;
  /** The feed's dates win over the page's. */
  feedPublished?: string | null;
  feedUpdated?: string | null;
  /** The feed item's author: the byline when the page shows none. */
  feedAuthor?: string | null;
  wrapper?: Wrapper | null;
  /**
   * Whether a wrapper's object is checked against what the page says about itself (guard.ts),
   * falling back to the single page's object (default true; the wrapper's own check turns it off
   * to judge the wrapper alone).
   */
  guard?: boolean;
  /** Larger pages are not parsed (reason "too large"). */
  maxBytes?: number;
  /** The thresholds (options.ts); the defaults when absent. */
  thresholds?: ExtractorOptions;
  /** Whether the object's sanitized HTML is made (default true; the wrapper's check compares texts only, and sanitizing was a fifth of its extractions). */
  html?: boolean;
  /**
   * The source of the object this extraction will be compared with (an article's comparison
   * key): an object made from the same source is that object, so its HTML is not sanitized
   * (html ''), and the caller takes the key's normalized object instead of making it again.
   */
  knownSource?: string | null;
}

/**
 * The version of what extraction makes of a page. Raise it whenever the object of an unchanged
 * page may come out differently (a field found that was missed, a block kept that was dropped):
 * an article's comparison key made by an older version is rebased — its snapshot extracted again
 * by this one — before a new capture is compared with it, so that an upgrade is not an edit.
 * 2: the byline and a `<time>` are found before a wrapper's node too; the per-page guard.
 * 3: what the page hides (`hidden`, an inline display:none or visibility:hidden) is never content;
 * a page that declares no language gets the one its text is in.
 * 4: reader counters ("Comments (14)", "1,204 shares") are left out, inline ones too (clean.ts).
 * 5: the normalized object's blocks are read from the sanitized HTML by htmlparser2, not parse5
 * (the same objects on every page of ../shared/datasets; a key made by 4 is rebased all the same).
 * 6: a `<div>` holding no block (a paragraph written as a div) is no block of its own to SIGFEED;
 * a title and JSON-LD in the body are read as the page's declarations, and a `<title>` is never content;
 * when the declared titles name no heading, the title is the headline shown with the article.
 * 7: the code of scripts and style sheets is not parsed into the page's text (dom.ts), so a block
 * holding a script is measured by its visible words (10 of 800 extractions of ../shared/datasets change).
 * 8: a comment thread's words are no evidence of where the article is (SIGFEED), and a leaf counts
 * each metadata signifier once; the site's name (a link home, og:site_name, a feed's title, the
 * host) is taken out of the declared title; a short post's headline locates it; a block inside
 * the declared body (itemprop="articleBody") is widened to it; an object that
 * cleaning left a fragment of its block gives way to the largest region cleaning dropped or the
 * page's main run (issue #54).
 * 9: a table cell holding one number is a datum, not a date stamp; a comment form's standing
 * lines ("No comments yet.", "Leave a Reply") are widget labels; a list of teaser cards (linked
 * headlines with short excerpts) inside the article's block is left out (clean.ts); a sibling
 * that is mostly links is no part of the body; parts of the body's type further apart in the main
 * run are merged; a block found by a page's description alone, apart from its headline, gives
 * way to the headline's block.
 * 10: a post's tag line (links declared tags, rel="tag" or "category", with less than a sentence
 * beside them) is left out; a container holding the page's headline is never a link list; a short
 * post widened for context is no fragment of its column; a teaser card's link may follow its
 * excerpt ("Read more…"), its headline's words are not counted against its excerpt, and a list's
 * cards average at most `teaserWords` beside their headlines; such a list is never the article —
 * neither as the page's main run nor as a region cleaning dropped — and when SIGFEED's block
 * proves a fragment, the block the page's headline opens is a candidate too; a block under the
 * page's headline that cleaning would leave without a word keeps its link-dense boxes (issue #54).
 * 11: the captions of the pictures inside the article are part of its text when they hold most of
 * its words (a slideshow, a photo post), a credit written in a caption with them (issue #69).
 * 12: a wrapper's object holding less than half the page's own running text gives way to the
 * single page's object when that holds it and an article's worth more (issue #69).
 * 13: a trusted wrapper's object is checked against the single page's whenever SIGFEED's block
 * lies an article's worth apart from the wrapper's node; words it adds that seldom name the page's
 * subject, or another block holding more of the page's keywords, set it aside (issue #69).
 * 14: words a trusted wrapper's object adds to the single page's that are mostly the text of links
 * (a "latest stories" box listing the article itself) set it aside too (issue #69).
 * 15: a post's meta line that changes at every visit — byline, date stamps, reader counters and
 * labels in parts, a counter or a time ago among them ("Posted by Ann Lee on 2026-11-18 | 9
 * comments") — is left out, its counter plain text or not; a stamp's time may hold seconds (clean.ts).
 */
export const EXTRACTOR_VERSION = 15;

export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024; // as extract.maxBytes in config/default.yaml

/** How the reason of an object begins when the per-page guard set the wrapper's object aside. */
const SET_ASIDE = 'wrapper set aside';

/** Whether the per-page guard set a wrapper's object aside for this (single-page) one. */
export const wrapperSetAside = (article: ArticleObject): boolean => article.reason?.startsWith(SET_ASIDE) ?? false;

/** The object of a page nothing could be extracted from, and why. */
export const emptyArticle = (reason: string): ArticleObject => ({
  title: null, byline: null, published: null, modified: null, html: '', text: '', leadImage: null, language: null, method: 'none', wrapper: null, reason, source: null,
});

/** Why `input` cannot be an HTML page, or null if it may be one. */
export function notHtmlReason(input: Uint8Array | string, contentType: string | null | undefined, maxBytes: number): string | null {
  const length = typeof input === 'string' ? input.length : input.byteLength;
  if (length === 0) return 'empty';
  if (length > maxBytes) return `too large (${length} bytes, limit ${maxBytes})`;
  if (contentType && !/html|xml|text\/plain/i.test(contentType)) return `not HTML (${contentType.split(';')[0]})`;
  const head = typeof input === 'string' ? input.slice(0, 2048) : Buffer.from(input.buffer, input.byteOffset, Math.min(2048, input.byteLength)).toString('latin1');
  if (/\u0000/.test(head)) return 'not HTML (binary content)';
  if (!/<[a-zA-Z!]/.test(head) && !/<[a-zA-Z]/.test(typeof input === 'string' ? input.slice(0, 65536) : '')) return 'not HTML (no markup)';
  return null;
}

interface WordCounts {
  words: number;
  /** Words in sentence-length leaves (`sentenceWords` or more): running text, not labels. */
  sentences: number;
}

/** Word counts of every element's subtree, computed once per page (and sentence length) in one pass over the leaves. */
const wordCountCache = new WeakMap<PreparedPage, Map<number, Map<Element, WordCounts>>>();
function wordCounts(page: PreparedPage, t: ExtractorOptions): Map<Element, WordCounts> {
  return cached(cached(wordCountCache, page, () => new Map<number, Map<Element, WordCounts>>()), t.sentenceWords, () => countWords(page, t));
}

function countWords(page: PreparedPage, t: ExtractorOptions): Map<Element, WordCounts> {
  const counts = new Map<Element, WordCounts>();
  for (const leaf of page.leaves) {
    const sentence = leaf.words.length >= t.sentenceWords ? leaf.words.length : 0;
    for (let element: Element | null = leaf.element; element; element = parentElement(element)) {
      const entry = counts.get(element);
      if (entry) {
        entry.words += leaf.words.length;
        entry.sentences += sentence;
      } else {
        counts.set(element, { words: leaf.words.length, sentences: sentence });
      }
    }
  }
  return counts;
}

function words(page: PreparedPage, node: Element, t: ExtractorOptions): number {
  return wordCounts(page, t).get(node)?.words ?? 0;
}

/** Words in sentence-length leaves under `node`, outside `skipped`. */
function sentenceWords(page: PreparedPage, node: Element, t: ExtractorOptions, skipped?: ReadonlySet<Element>): number {
  if (!skipped || skipped.size === 0) return wordCounts(page, t).get(node)?.sentences ?? 0;
  let count = 0;
  for (const leaf of page.leaves) if (leaf.words.length >= t.sentenceWords && isInside(leaf.element, node, skipped)) count += leaf.words.length;
  return count;
}

/**
 * The page's own running text: words in its sentence-length leaves outside links and outside
 * what names itself boilerplate (comments, sidebars, footers, related stories) — what could be
 * the article, wherever it is.
 */
function runningWords(page: PreparedPage, t: ExtractorOptions): number {
  const boilerplate = new Map<Element, boolean>();
  const outside = (element: Element | null): boolean => {
    if (!element) return false;
    const known = boilerplate.get(element);
    if (known !== undefined) return known;
    const is = element.name === 'a' || ALWAYS_SKIPPED.has(element.name) || namesItselfBoilerplate(element) || outside(parentElement(element));
    boilerplate.set(element, is);
    return is;
  };
  let count = 0;
  for (const leaf of page.leaves) if (leaf.words.length >= t.sentenceWords && !outside(leaf.element)) count += leaf.words.length;
  return count;
}

/** Words in short leaves (shorter than a sentence: labels, links, headlines) under `node`, outside `skipped`. */
function shortWords(page: PreparedPage, node: Element, t: ExtractorOptions, skipped: ReadonlySet<Element>): number {
  let count = 0;
  for (const leaf of page.leaves) if (leaf.words.length < t.sentenceWords && isInside(leaf.element, node, skipped)) count += leaf.words.length;
  return count;
}

/** A node with too little text to be an article: its nearest ancestor (within `enlargeLevels`) with enough running text. */
function enlargedIfSmall(page: PreparedPage, node: Element, t: ExtractorOptions): Element {
  if (words(page, node, t) >= t.minWords) return node;
  let at = node;
  for (let level = 0; level < t.enlargeLevels; level++) {
    const parent = at.parent;
    if (!parent || parent.type !== 'tag' || (parent as Element).name === 'body') break;
    at = parent as Element;
    if (sentenceWords(page, at, t) >= t.minWords) return at;
  }
  return node;
}

/** Words under `node` once the boilerplate inside it is left out. */
function cleanedWords(page: PreparedPage, node: Element, t: ExtractorOptions): number {
  const skipped = boilerplateInside(page, node, { thresholds: t });
  let count = 0;
  for (const leaf of page.leaves) if (isInside(leaf.element, node, skipped)) count += leaf.words.length;
  return count;
}

/** A wrapper's node is valid when it matched, has text, and carries the page's signifiers. */
function validWrapperNode(page: PreparedPage, node: Element, signifiers: Signifiers, t: ExtractorOptions): boolean {
  if (words(page, node, t) < t.minWords) return false;
  return signifiers.keywords.size === 0 || holdsTerm(page, node, signifiers.keywords);
}

/** Whether a text leaf under `node` holds one of `terms`. */
function holdsTerm(page: PreparedPage, node: Element, terms: ReadonlySet<string>): boolean {
  const all = leafTerms(page);
  return page.leaves.some((leaf, index) => all[index]!.some((term) => terms.has(term)) && isInside(leaf.element, node));
}

/**
 * Whether a container opens with a headline that links elsewhere: an item of a list of posts or
 * stories (a blog's front page, a teaser), each its own article — not a part of one article's
 * body, whose subheadings do not link away.
 */
function opensWithLinkedHeadline(element: Element): boolean {
  const heading = element.children.find((child): child is Element => child.type === 'tag' && /^h[1-3]$/.test((child as Element).name));
  return heading !== undefined && heading.children.some((child) => child.type === 'tag' && (child as Element).name === 'a');
}

/** Whether a container's words are mostly outside links: a part of a body, not a list of links to other pages. */
function isRunningText(element: Element, t: ExtractorOptions): boolean {
  const { words: count, linked } = linkWords(element);
  return count > 0 && linked / count <= t.linkListDensity;
}

/**
 * An article split over sibling containers of one type (a CMS writing its body in several
 * `<div class="body-part">`, possibly one level up): their parent, without the siblings of other
 * types. Containers that each open with a linked headline are separate posts, never merged.
 * Without such siblings, parts of the type further apart in the page's main run (scatteredParts).
 */
function withSameTypeSiblings(page: PreparedPage, node: Element, t: ExtractorOptions): { root: Element; skipped: Element[] } {
  let candidate = node;
  for (let level = 0; level < t.mergeLevels; level++) {
    const parent = candidate.parent;
    if (!parent || parent.type !== 'tag' || (parent as Element).name === 'body') break;
    if (opensWithLinkedHeadline(candidate)) break;
    if (Object.keys(typeAttributes(candidate)).length > 0) {
      const type = elementType(candidate);
      const siblings = (parent as Element).children.filter((child): child is Element => child.type === 'tag');
      const same = siblings.filter((child) => child !== candidate && child.name === candidate.name && elementType(child) === type && words(page, child, t) >= t.siblingMinWords && isRunningText(child, t));
      if (same.length > 0) {
        const keep = new Set([candidate, ...same]);
        return { root: parent as Element, skipped: siblings.filter((child) => !keep.has(child)) };
      }
    }
    candidate = parent as Element;
  }
  return scatteredParts(page, node, t) ?? { root: node, skipped: [] };
}

/** Whether `element` lies in a container, below `top`, that opens with a linked headline: one of a list's posts. */
function inListedPost(element: Element, top: Element): boolean {
  for (let at: Element | null = element; at && at !== top; at = parentElement(at)) if (opensWithLinkedHeadline(at)) return true;
  return false;
}

/**
 * An article whose body a layout writes in parts, each in rows and columns of its own between
 * full-width figures (a magazine's sections): the other elements of the found node's type —
 * running text, with `siblingMinWords` words — within the page's main run of text are its parts,
 * however deep each sits. The result is their lowest common ancestor without the branches that
 * hold no part. Parts must lie in the main run: the same type in a sidebar or a footer is not
 * the body's; and a part of a post in a list of posts (each opening with a linked headline) is
 * that post's.
 */
function scatteredParts(page: PreparedPage, node: Element, t: ExtractorOptions): { root: Element; skipped: Element[] } | null {
  if (Object.keys(typeAttributes(node)).length === 0) return null;
  const run = mssNode(page, t);
  if (!run || !isInside(node, run) || inListedPost(node, run)) return null;
  const type = elementType(node);
  const parts = page.elements.filter((element) => element !== node && element.name === node.name && elementType(element) === type
    && isInside(element, run) && !isInside(element, node) && !isInside(node, element)
    && words(page, element, t) >= t.siblingMinWords && isRunningText(element, t) && !inListedPost(element, run));
  if (parts.length === 0) return null;
  const kept = new Set([node, ...parts]);
  const onPath = new Set<Element>();
  for (const part of kept) for (let at: Element | null = part; at; at = parentElement(at)) onPath.add(at);
  const root = parts.reduce(lowestCommonAncestor, node);
  const skipped: Element[] = [];
  const visit = (element: Element) => {
    for (const child of element.children) {
      if (child.type !== 'tag' || kept.has(child as Element)) continue;
      if (onPath.has(child as Element)) visit(child as Element);
      else skipped.push(child as Element);
    }
  };
  visit(root);
  return { root, skipped };
}

/**
 * The article's node located by a wrapper, or null when the wrapper does not match this page (or
 * what it matches carries none of the page's signifiers).
 */
function wrappedNode(page: PreparedPage, wrapper: Wrapper, signifiers: Signifiers, t: ExtractorOptions): Element | null {
  // A type that several elements share (a path like table/tbody/tr/td): of those at the
  // learned level and position, the one with the most running text.
  const matches = matchWrapper(page, wrapper);
  const best = matches.filter((element) => Math.abs(depthOf(page, element)! - wrapper.level) === Math.abs(depthOf(page, matches[0]!)! - wrapper.level));
  const candidate = best.length > 1 ? best.reduce((a, b) => (sentenceWords(page, b, t) > sentenceWords(page, a, t) ? b : a)) : matches[0];
  if (!candidate || !validWrapperNode(page, candidate, signifiers, t)) return null;
  // A wrapper learned a level too high (the column around the article) still locates it: a
  // block inside it holding most of its running text, once cleaned, is the article's core.
  const inner = sigfeedOf(page, signifiers, t);
  if (!inner || inner.node === candidate || !isInside(inner.node, candidate)) return candidate;
  const skipped = boilerplateInside(page, candidate, { templateBlocks: new Set(wrapper.templateBlocks), thresholds: t });
  const total = sentenceWords(page, candidate, t, skipped);
  const innerWords = sentenceWords(page, inner.node, t, skipped);
  if (innerWords < t.innerShare * total) return candidate;
  // The article is rarely one block: headline, deck, lede and body may sit side by side around
  // the block that holds most of the text. Of the nodes from the wrapper's down to that block,
  // the highest one that holds nearly all the running text and adds little other text (link
  // lists, labels) is the article.
  const innerShort = shortWords(page, inner.node, t, skipped);
  const path: Element[] = [];
  for (let at: Element | null = inner.node; at && at !== candidate; at = at.parent as Element | null) path.unshift(at);
  path.unshift(candidate);
  return path.find((at) => sentenceWords(page, at, t, skipped) >= t.containerShare * total && shortWords(page, at, t, skipped) - innerShort <= t.shortShare * innerWords) ?? inner.node;
}

/** What is derived from a page for one set of signifiers and thresholds, kept with the page (a wrapper's page asks for SIGFEED's block, then the single page's object it is checked against). */
type PerSignifiers<V> = WeakMap<PreparedPage, WeakMap<Signifiers, WeakMap<ExtractorOptions, V>>>;
const perSignifiers = <V>(cache: PerSignifiers<V>, page: PreparedPage, signifiers: Signifiers, t: ExtractorOptions, compute: () => V): V =>
  cached(cached(cached(cache, page, () => new WeakMap()), signifiers, () => new WeakMap()), t, compute);

const sigfeedResults: PerSignifiers<SigfeedResult | null> = new WeakMap();
/** SIGFEED's block of a page, found once. */
const sigfeedOf = (page: PreparedPage, signifiers: Signifiers, t: ExtractorOptions): SigfeedResult | null =>
  perSignifiers(sigfeedResults, page, signifiers, t, () => sigfeed(page, signifiers, t));

/** The blocks the single page chooses between: SIGFEED's as it widens it, and the page's main run of text. */
interface SinglePageBlocks {
  found: SigfeedResult | null;
  foundNode: Element | null;
  foundWords: number;
  fallback: Element | null;
  /** The main run's words once cleaned. */
  fallbackWords: number;
  /** Whether the single page takes SIGFEED's block (an article's worth, not a fragment of the main run). */
  takesFound: boolean;
}
const singlePageBlockResults: PerSignifiers<SinglePageBlocks> = new WeakMap();
function singlePageBlocks(page: PreparedPage, signifiers: Signifiers, t: ExtractorOptions): SinglePageBlocks {
  return perSignifiers(singlePageBlockResults, page, signifiers, t, () => {
    const found = sigfeedOf(page, signifiers, t);
    const fallback = mssNode(page, t);
    const foundNode = signifiedBlock(page, found, signifiers, t);
    const foundWords = foundNode ? words(page, foundNode, t) : 0;
    const fallbackWords = fallback ? cleanedWords(page, fallback, t) : 0;
    const takesFound = foundNode !== null && foundWords >= t.minWords && foundWords >= t.sigfeedShareOfRun * fallbackWords;
    return { found, foundNode, foundWords, fallback, fallbackWords, takesFound };
  });
}

/**
 * Whether SIGFEED's block (as the single page widens it) and the wrapper's node are one
 * article's: the same element, or one inside the other with less than an article's worth of
 * running text between them or `agreement` of the larger's — the page's evidence and the template
 * agree, and the single page's object need not be made to compare (the wrapper's speed: on the
 * shared sets nine pages of ten).
 */
function sigfeedAgrees(page: PreparedPage, node: Element, wrappedWords: number, signifiers: Signifiers, t: ExtractorOptions): boolean {
  // Only where the single page would take that block: not when it is a fragment of the page's main run.
  const { foundNode: found, takesFound } = singlePageBlocks(page, signifiers, t);
  if (!found || !takesFound) return false;
  if (found === node) return true;
  if (!isInside(found, node) && !isInside(node, found)) return false;
  const [a, b] = [sentenceWords(page, found, t), sentenceWords(page, node, t)];
  // The wrapper's object must have kept its node's running text through cleaning too.
  const close = Math.abs(a - b) < t.minWords || Math.min(a, b) >= t.agreement * Math.max(a, b);
  return close && wrappedWords >= t.agreement * Math.min(a, b);
}

/** Extracts the article object of an already prepared page. */
export function extractFromPage(page: PreparedPage, options: ExtractOptions = {}): ArticleObject {
  const t = options.thresholds ?? EXTRACTOR_OPTIONS;
  const signifiers = options.feedTitle || options.feedSummary ? feedSignifiers(options.feedTitle, options.feedSummary, termRules(page.language)) : metadataSignifiers(page);
  const node = options.wrapper ? wrappedNode(page, options.wrapper, signifiers, t) : null;
  if (!node) return singlePage(page, options, signifiers, t);
  const wrapped = objectAt(page, node, 'forest', options, t);
  if (options.guard === false) return wrapped;
  // The per-page guard (issue #10): a wrapper's object that loses most of what the page says
  // about itself (guard.ts) is doubted, and the single page's object is computed too.
  const own = pageOwnSignifiers(signifiers, options.wrapper?.siteTerms);
  const covered = keywordCoverage(page, own, wrapped.text);
  const wrappedWords = wordCount(wrapped.text);
  const trusted = wrappedWords >= t.minWords && covered >= t.guardCoverage;
  if (trusted && sigfeedAgrees(page, node, wrappedWords, signifiers, t)) return wrapped;
  const single = singlePage(page, options, signifiers, t);
  const singleWords = wordCount(single.text);
  if (trusted) {
    // The wrapper's object holds the page's keywords: it stands unless the single page's object
    // disagrees with it and the page's own words support that one better (guard.ts).
    const wrapperHoldsRun = sentenceWords(page, node, t) >= t.wrapperRunShare * runningWords(page, t);
    const verdict = single.method === 'none' ? 'wrapper' : betterSupported(page, own, { wrapper: wrapped.text, single: single.text, wrapperHoldsRun, wrapperUnlinked: () => unlinkedText(node) }, t);
    return verdict === 'wrapper' ? wrapped : { ...single, reason: `${SET_ASIDE}: ${verdict}` };
  }
  // Doubted: the single page's object stands unless the wrapper's holds more of the page's words.
  const tooShort = wrappedWords < t.minWords && singleWords >= t.minWords;
  if (single.method !== 'none' && (tooShort || keywordCoverage(page, own, single.text) > covered)) {
    return { ...single, reason: `${SET_ASIDE}: its object held ${Math.round(100 * covered)}% of the page's own keywords in ${wrappedWords} words` };
  }
  return wrapped;
}

/** SIGFEED's block as the single page takes it: widened when small, the headline's when the signifiers found none. */
function signifiedBlock(page: PreparedPage, found: SigfeedResult | null, signifiers: Signifiers, t: ExtractorOptions): Element | null {
  return widenedToDeclaredBody(page, found ? titledBlock(page, enlargedIfSmall(page, found.node, t), signifiers, t) : headlineBlock(page, t), t);
}

/** SIGFEED on the page alone, or the maximum subsequence's run when the signifiers are weak. */
function singlePage(page: PreparedPage, options: ExtractOptions, signifiers: Signifiers, t: ExtractorOptions): ArticleObject {
  // Signifiers concentrated in one paragraph make SIGFEED's lowest common block ancestor that
  // paragraph: too little text to be an article, so its nearest ancestor with enough stands.
  // Signifiers found in no running text (a short post whose title's words are only in its
  // headline, a link) leave the headline itself: the article follows it. The main run's words are
  // counted once cleaned: a run that is mostly comments or link lists is not the article however
  // long it is, nor is a run that is a list of other stories' cards.
  const { found, foundNode, foundWords, fallback, fallbackWords, takesFound } = singlePageBlocks(page, signifiers, t);
  // The headline's block is the page's own word for where its article is: its object stands.
  const signified = found !== null;
  // Weak signifiers (a title that is only the site's name) can point at a footer: when the
  // block they find holds a small part of the page's main run of text, trust the run.
  const fromRun = () => (fallback && fallbackWords >= t.minWords && !isTeaserList(fallback, t) ? objectAt(page, fallback, 'fallback', options, t) : null);
  if (foundNode && takesFound) {
    const object = objectAt(page, foundNode, 'sigfeed', options, t);
    // A page never yields a fragment of its article: SIGFEED's block held an article's words,
    // but cleaning left too few of them to be one, and less than `fragmentShare` of the block's
    // (its containers named themselves boilerplate, or it was a list of other stories' cards):
    // the block was not the article. The largest region cleaning dropped, the page's main run of
    // text or the block the page's headline opens stands when it holds more. (A short post keeps
    // most of its block's words — of the block SIGFEED found, not of the column it was widened to
    // for having too few: it is no fragment.)
    const kept = wordCount(object.text);
    const blockWords = found && isInside(found.node, foundNode) ? words(page, found.node, t) : foundWords;
    if (!signified || kept >= t.minWords || kept >= t.fragmentShare * blockWords) return object;
    const dropped = largestDroppedRegion(page, foundNode, t);
    const headline = headlineBlock(page, t);
    const candidates = [object, fromRun(), dropped ? objectAt(page, dropped, 'sigfeed', options, t) : null, headline && headline !== foundNode ? objectAt(page, headline, 'sigfeed', options, t) : null];
    return candidates.reduce<ArticleObject>((best, candidate) => (candidate && wordCount(candidate.text) > wordCount(best.text) ? candidate : best), object);
  }
  return fromRun() ?? { ...emptyArticle('no article found: too little text'), ...titleOnly(page, t) };
}

/**
 * A block the page's metadata found with no word of the page's title in it — found by its
 * description alone — gives way to the block the page's headline opens, when the two lie apart.
 * A description can be the site's, not the page's: a blog engine writes the blog's tagline into
 * every page's meta description, and the sidebar's about box shares its words, while a short
 * post's title words are only in its headline (too short a leaf to count). The title is the
 * page's own word for what it is; a block inside the headline's (a body below its headline) stays.
 */
function titledBlock(page: PreparedPage, node: Element, signifiers: Signifiers, t: ExtractorOptions): Element {
  const title = signifiers.titleKeywords;
  if (!title || title.size === 0 || holdsTerm(page, node, title)) return node;
  const headline = headlineBlock(page, t);
  return headline && !isInside(headline, node) && !isInside(node, headline) ? headline : node;
}

/**
 * The block the page's headline opens (metadata.ts pageHeadline): its nearest ancestor, within
 * `enlargeLevels`, with an article's worth of words — or null without such a headline.
 */
function headlineBlock(page: PreparedPage, t: ExtractorOptions): Element | null {
  const heading = pageHeadline(page, t);
  for (let at = heading ? parentElement(heading) : null, level = 0; at && at.name !== 'body' && level < t.enlargeLevels; at = parentElement(at), level++) {
    if (words(page, at, t) >= t.minWords) return at;
  }
  return null;
}

/**
 * A block inside the element the page declares its article's body (schema.org microdata,
 * `itemprop="articleBody"`) is a part of that body — a section between figures, the paragraphs
 * after a pull quote — and the declared body, holding an article's worth of words, stands for it.
 * A declaration never narrows a block, nor replaces one apart from it.
 */
function widenedToDeclaredBody(page: PreparedPage, node: Element | null, t: ExtractorOptions): Element | null {
  if (!node) return null;
  for (let at = parentElement(node); at && at.name !== 'body'; at = parentElement(at)) {
    if (/(^|\s)articleBody(\s|$)/.test(at.attribs['itemprop'] ?? '') && words(page, at, t) >= t.minWords) return at;
  }
  return node;
}

/** Whether a leaf's text is a link's. */
function linkedLeaf(element: Element): boolean {
  for (let node: Element | null = element; node; node = parentElement(node)) if (node.name === 'a') return true;
  return false;
}

/**
 * Of the containers cleaning left out of `node`, the one holding the most running text outside
 * links — the largest coherent text region a block's cleaning dropped — or null when none holds
 * an article's worth. A post's container can name itself boilerplate (WordPress classes a post
 * `tag-…` for each of its tags) and, beside a longer box of related stories or comments, hold
 * less than half of the block: cleaning then drops it with them. Comment threads, forms and
 * lists of teaser cards stay dropped: they are never the article.
 */
function largestDroppedRegion(page: PreparedPage, node: Element, t: ExtractorOptions): Element | null {
  let best: { element: Element; words: number } | null = null;
  for (const element of boilerplateInside(page, node, { thresholds: t })) {
    if (namesItselfComments(element) || ALWAYS_SKIPPED.has(element.name) || isTeaserList(element, t)) continue;
    let count = 0;
    for (const leaf of page.leaves) if (leaf.words.length >= t.sentenceWords && isInside(leaf.element, element) && !linkedLeaf(leaf.element)) count += leaf.words.length;
    if (count >= t.minWords && (!best || count > best.words)) best = { element, words: count };
  }
  return best?.element ?? null;
}

/** The article object whose body is `found` (with its same-type siblings), cleaned. */
function objectAt(page: PreparedPage, found: Element, method: 'forest' | 'sigfeed' | 'fallback', options: ExtractOptions, t: ExtractorOptions): ArticleObject {
  const merged = withSameTypeSiblings(page, found, t);
  const node = merged.root;
  const templateBlocks = new Set(method === 'forest' ? options.wrapper?.templateBlocks ?? [] : []);
  const cleaned = (keepLinkLists: boolean) => {
    const skipped = boilerplateInside(page, node, { templateBlocks, thresholds: t, keepLinkLists });
    for (const element of merged.skipped) skipped.add(element);
    return { skipped, body: articleText(node, skipped, t.captionStoryShare) };
  };
  let { skipped, body } = cleaned(false);
  // Link density tells links from prose only where there is prose to tell them from: a block
  // under the page's headline that cleaning would leave without a word is a short post whose few
  // words are mostly links ("Created by Ann Lee, example.com"), and its link-dense boxes stay.
  if (body.trim() === '' && holdsHeadline(page, node, t)) ({ skipped, body } = cleaned(true));
  const metadata = pageMetadata(page, node, options.feedAuthor ?? null, t);
  // The deck a wrapper knows the template's slot of, when it sits apart from the body.
  const deckElement = method === 'forest' && options.wrapper?.deck ? deckBefore(page, node, options.wrapper.deck, t) : null;
  const deck = deckElement ? textOf(deckElement).trim() : null;
  const title = metadata.title ?? options.feedTitle ?? null;
  const published = options.feedPublished ?? metadata.published;
  const region = options.html === false ? null : regionHtml(node, skipped);
  const source = region === null ? null : objectSource({ region, baseUrl: page.url, deck, title, byline: metadata.byline, published, leadImage: metadata.leadImage });
  // Null: the object is the known one, made from the same source (no HTML needed).
  const html = region === null ? '' : source === options.knownSource ? null : sanitizedHtml(region, page.url);
  return {
    title,
    byline: metadata.byline,
    published,
    modified: options.feedUpdated ?? metadata.modified,
    html: html === null ? '' : deck ? `<p>${escapeUTF8(deck)}</p>${html}` : html,
    text: deck ? `${deck}\n${body}` : body,
    leadImage: metadata.leadImage,
    language: metadata.language,
    method,
    wrapper: method === 'forest' ? options.wrapper!.xpath : null,
    reason: null,
    source,
  };
}

/**
 * Everything an object's normalized form is made from (archive/normalize.ts reads the title,
 * byline, date, lead image and sanitized HTML; sanitizing reads the region's HTML and the URL
 * links are resolved against; the deck leads the HTML), with the extractor's version, as one
 * digest. Revisits mostly find an article as it was (bench:scale: 10,244 of 10,301) behind ads
 * and counters that change outside it: with the comparison key's source at hand, such a page's
 * object is known without sanitizing and normalizing it again — a tenth of a revisit's work.
 */
export function objectSource(parts: { region: string; baseUrl: string | null; deck: string | null; title: string | null; byline: string | null; published: string | null; leadImage: string | null }): string {
  return createHash('sha256').update(JSON.stringify([EXTRACTOR_VERSION, parts.region, parts.baseUrl, parts.deck, parts.title, parts.byline, parts.published, parts.leadImage])).digest('hex');
}

function titleOnly(page: PreparedPage, t: ExtractorOptions): Partial<ArticleObject> {
  return { title: pageMetadata(page, null, null, t).title };
}

/** Extracts the article object from raw page bytes (or text). */
export function extractArticle(input: Uint8Array | string, options: ExtractOptions = {}): ArticleObject {
  const reason = notHtmlReason(input, options.contentType, options.maxBytes ?? DEFAULT_MAX_BYTES);
  if (reason) return emptyArticle(reason);
  return extractFromPage(preparePage(input, { url: options.url ?? null, contentType: options.contentType ?? null }), options);
}
