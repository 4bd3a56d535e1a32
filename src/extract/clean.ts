import type { Element } from 'domhandler';
import { textContent } from 'domutils';
import { holdsLink, isTemplateBlock, linkWords, textBlocks } from './blocks.js';
import type { PreparedPage } from './dom.js';
import { holdsHeadline } from './metadata.js';
import { wordCount } from './guard.js';
import { EXTRACTOR_OPTIONS, type ExtractorOptions } from './options.js';
import { countWordRuns } from './terms.js';
import { cached } from '../util/cached.js';

/**
 * Cleaning inside the chosen block: what sits in the article's container without being the
 * article. Three kinds of evidence: markup that names itself (share bars, related boxes,
 * newsletter forms, comments), link lists, and — given a wrapper — blocks whose text recurs
 * across the template's pages.
 */

const BOILERPLATE = /(^|[-_\s])(share|sharing|social|related|recommend\w*|newsletter|subscri\w*|sign-?up|comments?|disqus|promo\w*|advert\w*|ads?|sponsor\w*|banner|toolbar|breadcrumbs?|tags?|outbrain|taboola|trending|popular|most-?read|more-?from|read-?more|also|print|email|pagination|pager|nav\w*|menu|footer|rating|poll|widget|sidebar|aside|gallery|slideshow|carousel|lightbox|modal|next|prev|previous|hidden|subscription|paywall|inline-?ad)([-_\s]|$)/i;
/** Elements that are the page's chrome or its controls: left out of an article however much text they hold. */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['nav', 'aside', 'footer', 'form', 'button', 'select', 'input', 'textarea', 'label']);

export function namesItselfBoilerplate(element: Element): boolean {
  const label = `${element.attribs['class'] ?? ''} ${element.attribs['id'] ?? ''} ${element.attribs['role'] ?? ''}`;
  return label.trim() !== '' && BOILERPLATE.test(label);
}

/** A container that names itself a comment thread. */
const COMMENTS = /(^|[-_\s])(comments?|comment-?list|responses|replies|discussion)([-_\s]|$)/i;

/** Whether an element names itself (by class or id) a comment thread or a part of one. */
export const namesItselfComments = (element: Element): boolean => COMMENTS.test(`${element.attribs['class'] ?? ''} ${element.attribs['id'] ?? ''}`);

/**
 * A block whose whole text is a widget's label ("Advertisement", "Share", "3 comments"), the
 * comment form's and thread's standing lines among them ("No comments yet.", "Leave a comment",
 * "Post a Comment", "Comments are closed."): blog engines print them under every post.
 */
const LABEL = /^\s*(\d+\s+)?(advert|advertisement|ad|sponsored|comments?|share|share this|tweet|email|print|close|caption|read more|more|show more|load more|subscribe|sign up|follow us|related|related articles|you may also like|recommended|no comments( yet)?|(leave|post|add|write) a (comment|reply)|comments are closed|be the first to comment)\s*[:.!]?\s*$/i;

/**
 * A reader counter: a count of comments, shares, likes or views with its word ("Comments (14)",
 * "1,204 shares", "Views: 87"). It changes with every visit while the article does not, so an
 * object holding it would be a new version at each revisit; and it is the site's widget, not the
 * article's prose. A block or an inline element whose whole text is one is left out.
 */
const COUNTER_WORD = '(comments?|replies|responses|shares?|likes?|views?|reactions?)';
const COUNTER = new RegExp(`^\\s*(\\(?\\d[\\d,.]*\\)?\\s*${COUNTER_WORD}|${COUNTER_WORD}\\s*[:(]?\\s*\\d[\\d,.]*\\s*\\)?)\\s*$`, 'i');
/** Inline elements a counter comes in (a link to the thread, a badge): checked one by one, as blocks are. */
const INLINE = new Set(['a', 'span', 'small', 'b', 'strong', 'em', 'i']);

const STAMP_WORDS = /^(updated|published|posted|modified|last|at|on|ago|minutes?|mins?|hours?|hrs?|days?|image|of|[ap]\.?m\.?|gmt|utc|bst|cet|cest|[ecmp][sd]t|(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?|(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?)$/i;

/**
 * A block that is only a date or time stamp ("Updated at 1:23 p.m.", "Nov. 18, 2019", "2 hours
 * ago", "Image 1 of 5", "2019-11-18"): metadata the object carries apart, not prose. A table's
 * cell holding one bare number is read with its row and column — a score, a count, a rank — and
 * stays; alone elsewhere, a number is most often a year of an archive's list or a stamp's part.
 */
function isStamp(text: string, cell: boolean, t: ExtractorOptions): boolean {
  const tokens = text.trim().split(/[\s,|·–—-]+/).filter(Boolean);
  if (tokens.length === 0 || tokens.length > t.stampTokens || !/\d/.test(text)) return false;
  if (cell && tokens.length === 1 && /^\d+\.?$/.test(tokens[0]!)) return false;
  return tokens.every((token) => /^\d{1,4}(:\d{2}){0,2}(st|nd|rd|th)?\.?$/i.test(token) || STAMP_WORDS.test(token));
}

/** Words that open a byline before its "by" ("Posted by", "Written by", "Photos by"). */
const BYLINE_VERBS = /^(posted|written|published|reported|reporting|words|story|text|photos?|pictures?|edited|interview)$/i;
/** "By" in the languages a byline is most often written in. */
const BY = /^(by|von|par|por|door|av|af)$/i;
/** A word of a name as a byline writes it: capitalised ("Ann", "O'Neil", "J."), or what joins two names. */
const NAME_WORD = /^(\p{Lu}[\p{L}\p{M}'’.-]*,?|and|&|und|et|y)$/u;

/**
 * A byline written out: "By Ann Lee", "Posted by Ann Lee and Bo Chan on 18 Nov 2026" — a "by"
 * (after one of the words that open a credit), at most `bylineNameWords` words of a name, then at
 * most a date stamp. What follows "by" in prose ("approved by 12 votes") is no name.
 */
function isByline(text: string, t: ExtractorOptions): boolean {
  const tokens = text.trim().split(/\s+/);
  const at = BY.test(tokens[0] ?? '') ? 1 : BYLINE_VERBS.test(tokens[0] ?? '') && BY.test(tokens[1] ?? '') ? 2 : -1;
  if (at < 0) return false;
  let end = at;
  while (end < tokens.length && end - at < t.bylineNameWords && NAME_WORD.test(tokens[end]!)) end++;
  const rest = tokens.slice(end).join(' ');
  return end > at && (rest === '' || isStamp(rest, false, t));
}

/** Where a meta line's parts meet: a bar, a middle dot, a bullet, a spaced dash. */
const META_SEPARATOR = /\s*[|·•]\s*|\s+[–—]\s+/;

/** A time given as how long ago ("2 minutes ago", "1 hour, 41 minutes ago"): it reads differently at every visit. */
const RELATIVE_TIME = /\b\d+\s+(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\s+ago\b/i;

/**
 * A post's meta line that changes at every visit: at most `metaLineTokens` words in parts
 * (META_SEPARATOR), each of them a byline, a date stamp, a reader counter or a widget label, one
 * at least a counter, a label or a time ago — "Posted by Ann Lee on 2026-11-18 | 9 comments". Held
 * in the object's text it would make each revisit a new version; the object carries its byline
 * and dates apart. A line of byline and date alone does not change, and stays: whether it is the
 * article's is a matter of convention (the shared sets' gold texts keep it on some sites, not on
 * others). One prose sentence is no such line: its parts are not all metadata.
 */
function isMetaLine(text: string, cell: boolean, t: ExtractorOptions): boolean {
  if (text.trim().split(/\s+/).length > t.metaLineTokens) return false;
  const parts = text.split(META_SEPARATOR).map((part) => part.trim()).filter((part) => part !== '');
  const widget = (part: string) => LABEL.test(part) || COUNTER.test(part);
  return parts.length > 0 && (RELATIVE_TIME.test(text) || parts.some(widget)) && parts.every((part) => widget(part) || isStamp(part, cell, t) || isByline(part, t));
}

/** A link the page declares a tag of the document: HTML's `rel="tag"`; WordPress writes its categories `rel="category"` (or `"category tag"`). */
const isTagLink = (element: Element): boolean => element.name === 'a' && /(^|\s)(tag|category)(\s|$)/i.test(element.attribs['rel'] ?? '');

/**
 * A post's tag line: links the page declares its tags (isTagLink) with less than a sentence
 * beside them — "Tags:", an author, a time ("sounds — Ann @ 12:52"). The tags say what the post
 * is filed under, not what it says; a sentence that links a tag in its prose keeps its words.
 */
function isTagLine(block: Element, t: ExtractorOptions): boolean {
  let tags = 0;
  let other = 0;
  const visit = (node: Element, inTag: boolean) => {
    for (const child of node.children) {
      if (child.type === 'text') {
        const count = countWordRuns(child.data);
        if (inTag) tags += count;
        else other += count;
      } else if (child.type === 'tag') visit(child as Element, inTag || isTagLink(child as Element));
    }
  };
  visit(block, isTagLink(block));
  return tags > 0 && other < t.sentenceWords;
}

/**
 * Whether a block's whole text is a widget's label, a reader counter, a date stamp, a tag line
 * or a meta line. Kept per element (a prepared page does not change) and thresholds: a page's single-page
 * and wrapper extractions (the per-page guard, the leave-one-out check) ask it of the same blocks.
 */
const widgetTexts = new WeakMap<ExtractorOptions, WeakMap<Element, boolean>>();
function isWidgetText(block: Element, t: ExtractorOptions): boolean {
  return cached(cached(widgetTexts, t, () => new WeakMap<Element, boolean>()), block, () => {
    const text = textContent(block);
    const cell = block.name === 'td' || block.name === 'th';
    return LABEL.test(text) || COUNTER.test(text) || isStamp(text, cell, t) || isTagLine(block, t) || isMetaLine(text, cell, t);
  });
}

/** Elements a list of teasers comes in. */
const CONTAINERS = new Set(['div', 'ul', 'ol', 'section', 'aside']);
const HEADING = /^h[1-6]$/;

/** The first heading inside `element`, in document order. */
function firstHeading(element: Element): Element | null {
  for (const child of element.children) {
    if (child.type !== 'tag') continue;
    const node = child as Element;
    if (HEADING.test(node.name)) return node;
    const inner = firstHeading(node);
    if (inner) return inner;
  }
  return null;
}

/**
 * A teaser card's words, split: its headline's and the rest (an excerpt, a date) — or null when
 * `element` is no card: a headline and a link to another page, through the headline or a
 * "Read more…" after the excerpt.
 */
function cardWords(element: Element, t: ExtractorOptions): { headline: number; beside: number } | null {
  const heading = firstHeading(element);
  if (!heading || !holdsLink(element)) return null;
  const headline = linkWords(heading).words;
  const { words } = linkWords(element, headline + t.linkListWords);
  return words === 0 ? null : { headline, beside: words - headline };
}

/**
 * A list of teasers: `teaserListItems` or more children, each a card (cardWords), with at most
 * `teaserWords` words beside a headline on average — one card's longer excerpt does not make a
 * list of cards a story's sections — and holding most of the container's words ("Recent
 * stories", "More from the site" under the story, in its container). Each item is another
 * article's card, not a part of this one — and its excerpt is prose, so the link-density rule for
 * link lists does not see it. A blog's posts (long) and a story's subheadings followed by
 * paragraphs (not one short card each) are not teasers.
 */
export function isTeaserList(element: Element, t: ExtractorOptions): boolean {
  let items = 0;
  let itemWords = 0;
  let beside = 0;
  for (const child of element.children) {
    if (child.type !== 'tag') continue;
    const card = cardWords(child as Element, t);
    if (card === null) continue;
    items++;
    itemWords += card.headline + card.beside;
    beside += card.beside;
  }
  return items >= t.teaserListItems && beside <= items * t.teaserWords && itemWords > linkWords(element).words / 2;
}

export interface CleanOptions {
  /** Normalised block texts known to be template (from a wrapper). */
  templateBlocks?: ReadonlySet<string>;
  thresholds?: ExtractorOptions;
  /** Link-dense boxes stay in (an object that cleaning would otherwise leave empty). */
  keepLinkLists?: boolean;
}

/** The elements inside `root` to leave out of the article. */
export function boilerplateInside(page: PreparedPage, root: Element, options: CleanOptions = {}): Set<Element> {
  const t = options.thresholds ?? EXTRACTOR_OPTIONS;
  const skipped = new Set<Element>();
  const rootText = textContent(root);
  const rootLength = Math.max(1, rootText.length);
  let rootWords: number | undefined;
  const visit = (element: Element) => {
    for (const child of element.children) {
      if (child.type !== 'tag') continue;
      const node = child as Element;
      if (ALWAYS_SKIPPED.has(node.name) || namesItselfBoilerplate(node)) {
        // A container that names itself boilerplate but holds most of the text is the article
        // wrapper of an odd CMS, not a share bar — unless it is a comment thread beside an
        // article's worth of text (`articleBesideThread` words; a page whose only text is the
        // thread keeps it): a thread longer than its article is still the readers'.
        const text = textContent(node);
        const share = text.length / rootLength;
        // Words are counted only for a large thread (rare), the root's once: counting them cost each extraction.
        const thread = share >= t.boilerplateShare && namesItselfComments(node) && (rootWords ??= wordCount(rootText)) - wordCount(text) >= t.articleBesideThread;
        if (share < t.boilerplateShare || thread) {
          skipped.add(node);
          continue;
        }
      }
      if (node.name === 'ul' || node.name === 'ol' || node.name === 'div' || node.name === 'table') {
        const { words, linked } = linkWords(node, t.linkListWords);
        // A container holding the page's headline is the article's, however linked its few words
        // (a short post: a linked headline, a line of category links, a linked credit).
        if (!options.keepLinkLists && words > 0 && linked / words > t.linkListDensity && words < t.linkListWords && !holdsHeadline(page, node, t)) {
          skipped.add(node);
          continue;
        }
      }
      if (CONTAINERS.has(node.name) && isTeaserList(node, t)) {
        skipped.add(node);
        continue;
      }
      if (INLINE.has(node.name) && COUNTER.test(textContent(node))) {
        skipped.add(node);
        continue;
      }
      // A paragraph that is nothing but a link is a teaser for another page ("READ MORE: …").
      if (node.name === 'p' || /^h[2-6]$/.test(node.name)) {
        const { words, linked } = linkWords(node, t.teaserWords + 1);
        if (words > 0 && linked / words >= t.teaserDensity && words <= t.teaserWords) {
          skipped.add(node);
          continue;
        }
      }
      visit(node);
    }
  };
  visit(root);
  for (const block of textBlocks(page, root)) if (block !== root && isWidgetText(block, t)) skipped.add(block);
  if (options.templateBlocks && options.templateBlocks.size > 0) {
    const hasLabels = [...options.templateBlocks].some((key) => key.startsWith('label:'));
    for (const block of textBlocks(page, root)) {
      if (block !== root && isTemplateBlock(block, options.templateBlocks, hasLabels)) skipped.add(block);
    }
  }
  return skipped;
}
