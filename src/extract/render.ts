import render from 'dom-serializer';
import { isTag, type AnyNode, type Element } from 'domhandler';
import sanitizeHtml from 'sanitize-html';
import { absoluteUrl } from '../feeds/sanitize.js';
import { isDropped, textOf } from './dom.js';

/**
 * The article's content as sanitized HTML (paragraphs, headings, lists, quotes, images with
 * captions and absolute URLs, links) and as plain text with a line break between blocks.
 */

const ALLOWED = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'figure', 'figcaption', 'img', 'a', 'em', 'strong', 'b', 'i', 'u', 'br', 'hr', 'table', 'thead', 'tbody', 'tr', 'td', 'th', 'dl', 'dt', 'dd', 'sub', 'sup', 'q', 'cite', 'abbr', 'time'];

/** A copy of `root` without the skipped elements, nor those never content (the page itself is left untouched). */
function prunedCopy(root: Element, skipped: ReadonlySet<Element>): Element {
  const copy = root.cloneNode(true);
  const prune = (original: Element, clone: Element) => {
    for (let i = original.children.length - 1; i >= 0; i--) {
      const child = original.children[i] as AnyNode;
      if (!isTag(child)) continue;
      if (skipped.has(child) || isDropped(child)) clone.children.splice(i, 1);
      else prune(child, clone.children[i] as Element);
    }
  };
  prune(root, copy);
  return copy;
}

export function articleHtml(root: Element, skipped: ReadonlySet<Element>, baseUrl: string | null): string {
  const html = render(prunedCopy(root, skipped), { decodeEntities: true });
  return sanitizeHtml(html, {
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

const CAPTION = /(^|[-_\s])(caption|credit|image-?credit|photo-?credit)s?([-_\s]|$)/i;

/**
 * The article's prose: the HTML keeps images with their captions, the text does not — captions
 * and photo credits describe the pictures, not the story, and would read as stray lines.
 */
export function articleText(root: Element, skipped: ReadonlySet<Element>): string {
  return textOf(root, (element) => skipped.has(element) || element.name === 'figcaption' || CAPTION.test(`${element.attribs['class'] ?? ''} ${element.attribs['id'] ?? ''}`));
}
