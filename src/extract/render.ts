import render from 'dom-serializer';
import { isTag, type ChildNode, type Element } from 'domhandler';
import sanitizeHtml from 'sanitize-html';
import { absoluteUrl } from '../feeds/sanitize.js';
import { isDropped, parentElement, textOf } from './dom.js';

/**
 * The article's content as sanitized HTML (paragraphs, headings, lists, quotes, images with
 * captions and absolute URLs, links) and as plain text with a line break between blocks.
 */

const ALLOWED = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'figure', 'figcaption', 'img', 'a', 'em', 'strong', 'b', 'i', 'u', 'br', 'hr', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'dl', 'dt', 'dd', 'sub', 'sup', 'q', 'cite', 'abbr', 'time'];

/**
 * The article's region before sanitizing (what its sanitized HTML, and so its normalized object,
 * is made from): `root` as HTML without the skipped elements, nor those never content, and the
 * page left as it was: each children list that loses an element is swapped for a filtered one
 * while rendering, then put back. (A deep copy of the region, pruned, cost more than rendering
 * it: bench:scale's worker profile, 8 s a worker in an 8-minute run.) The serializer reads only
 * children lists and parents, which are the page's own, so the HTML is the copy's, character for
 * character.
 */
export function regionHtml(root: Element, skipped: ReadonlySet<Element>): string {
  const swapped: Array<{ element: Element; children: ChildNode[] }> = [];
  const prune = (element: Element) => {
    const { children } = element;
    let kept: ChildNode[] | null = null;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      const drop = isTag(child) && (skipped.has(child) || isDropped(child));
      if (drop) kept ??= children.slice(0, i);
      else {
        kept?.push(child);
        if (isTag(child)) prune(child);
      }
    }
    if (kept) {
      swapped.push({ element, children });
      element.children = kept;
    }
  };
  try {
    prune(root);
    return render(root, { decodeEntities: true });
  } finally {
    for (const { element, children } of swapped) element.children = children;
  }
}

/** The region's HTML sanitized: only content elements and attributes, links and images made absolute against `baseUrl`. */
export function sanitizedHtml(region: string, baseUrl: string | null): string {
  return sanitizeHtml(region, {
    allowedTags: ALLOWED,
    allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title', 'width', 'height'], time: ['datetime'], td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    exclusiveFilter: (frame) => frame.tag === 'p' && frame.text.trim() === '' && !frame.mediaChildren.length,
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: attribs['href'] ? { ...attribs, href: absoluteUrl(attribs['href'], baseUrl) ?? attribs['href'] } : attribs }),
      img: (tagName, attribs) => {
        const src = attribs['src'] ?? attribs['data-src'] ?? attribs['data-original'];
        return { tagName, attribs: src ? { ...attribs, src: absoluteUrl(src, baseUrl) ?? src } : attribs };
      },
    },
  }).replace(/\n{3,}/g, '\n\n').trim();
}

const CAPTION = /(^|[-_\s])caption(s|-text)?([-_\s]|$)/i;
const CREDIT = /(^|[-_\s])(credit|image-?credit|photo-?credit)s?([-_\s]|$)/i;
const classesOf = (element: Element) => `${element.attribs['class'] ?? ''} ${element.attribs['id'] ?? ''}`;
const isCaption = (element: Element) => element.name === 'figcaption' || CAPTION.test(classesOf(element));

/** Whether an element or one of its ancestors up to `root` is a picture's caption. */
function withinCaption(element: Element, root: Element): boolean {
  for (let node: Element | null = element; node && node !== root; node = parentElement(node)) if (isCaption(node)) return true;
  return false;
}

/** How many words a text has (whitespace-separated). */
const wordsIn = (text: string) => (text.match(/\S+/g) ?? []).length;

/**
 * The article's prose. A photo credit is part of the caption it is written in; a credit line
 * standing alone names who took a picture, not what happened, and would read as a stray line.
 * Captions are part of the text when they hold at least `captionStoryShare` of its words — the
 * pictures are the story (a slideshow's current slide, a photo post) — and otherwise describe
 * the illustrations of a story told in prose: the HTML keeps them with their pictures (issue #69).
 */
export function articleText(root: Element, skipped: ReadonlySet<Element>, captionStoryShare: number): string {
  const left = (element: Element) => skipped.has(element) || (CREDIT.test(classesOf(element)) && !withinCaption(element, root));
  // The text with its captions is read only when the prose met one: most articles have none.
  let captions = false;
  const prose = textOf(root, (element) => {
    if (left(element)) return true;
    if (!isCaption(element)) return false;
    captions = true;
    return true;
  });
  if (!captions) return prose;
  const whole = textOf(root, left);
  const total = wordsIn(whole);
  return total > 0 && total - wordsIn(prose) >= captionStoryShare * total ? whole : prose;
}
