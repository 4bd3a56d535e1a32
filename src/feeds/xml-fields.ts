import sanitizeHtml from 'sanitize-html';
import {
  attributeOf, childNamed, childrenNamed, isElement, NS, textOf, xhtmlToHtml, type XmlElement,
} from './xml-tree.js';

/**
 * The fields of an RSS, RDF or Atom document that depend on how their text is marked up, read
 * from the namespace-resolved tree (xml-tree.ts): titles, descriptions, summaries and contents
 * in every Atom text-construct mode, Dublin Core and dcterms, full-content elements, and item
 * identities (guid, atom:id, rdf:about).
 *
 * Text constructs follow RFC 4287 §3.1 (type text, html or xhtml; an xhtml value is the content
 * of its wrapping div), §4.1.3.3 (any other media type that is neither XML nor text/* is base64)
 * and the Atom 0.3 draft (a MIME type, and mode xml, escaped or base64). RSS
 * has no type: a title is HTML only when it looks like HTML — an end tag or an entity, and no tag
 * that is not an HTML element — so that "Use <blink> wisely" stays text, the reading of the
 * reference feed parser (Universal Feed Parser, "HTML in titles").
 */

/** A value that is plain text, or HTML still to be sanitized. */
export interface Marked {
  kind: 'text' | 'html';
  value: string;
  /** The base its relative links resolve against (xml:base). */
  base: string | null;
}

export interface TreeItem {
  id: string | null;
  title: Marked | null;
  summary: Marked | null;
  content: Marked | null;
  author: string | null;
  /** Categories, tags and subjects as written, in document order, each once. */
  categories: string[];
}

export interface TreeFeed {
  /** The RSS 0.90 namespace (a format of its own: RDF with its own vocabulary). */
  rss090: boolean;
  title: Marked | null;
  description: Marked | null;
  items: TreeItem[];
}

const ATOM = [NS.atom10, NS.atom03] as const;
const RSS = ['', NS.rss10, NS.rss090] as const;
const DC = [NS.dc, NS.dcterms] as const;

const HTML_ELEMENTS = new Set([
  ...sanitizeHtml.defaults.allowedTags,
  'a', 'abbr', 'b', 'big', 'blockquote', 'br', 'center', 'cite', 'code', 'del', 'div', 'em', 'embed', 'font', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'hr', 'i', 'iframe', 'img', 'input', 'ins', 'kbd', 'li', 'object', 'ol', 'p', 'pre', 'q', 's', 'script', 'small', 'span', 'strike', 'strong', 'style',
  'sub', 'sup', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'tt', 'u', 'ul', 'video', 'audio', 'source', 'picture', 'figure', 'figcaption',
]);

/** Whether untyped text is HTML: it has an end tag or an entity, and every tag is an HTML element. */
export function looksLikeHtml(text: string): boolean {
  if (!/<\/[a-z][a-z0-9]*\s*>|&(?:[a-z][a-z0-9]*|#\d+|#x[0-9a-f]+);/i.test(text)) return false;
  return [...text.matchAll(/<\/?([a-z][a-z0-9]*)/gi)].every((match) => HTML_ELEMENTS.has(match[1]!.toLowerCase()));
}

/** The children of an xhtml value, without the div that wraps them (RFC 4287 §3.1.1.3). */
function unwrapDiv(element: XmlElement) {
  const elements = element.children.filter(isElement);
  const onlyWhitespaceBeside = element.children.every((child) => isElement(child) || child.trim() === '');
  const div = elements.length === 1 && elements[0]!.ns === NS.xhtml && elements[0]!.name === 'div' && onlyWhitespaceBeside ? elements[0] : null;
  return div ? div.children : element.children;
}

/** An Atom 1.0 or 0.3 text construct. */
export function textConstruct(element: XmlElement): Marked {
  const type = (attributeOf(element, 'type') ?? '').trim().toLowerCase();
  const mode = (attributeOf(element, 'mode') ?? '').trim().toLowerCase();
  const base = element.base;
  const htmlType = type === 'html' || type.includes('html');
  // RFC 4287 §4.1.3.3: a media type that is not XML and not text/* is base64-encoded. What it
  // decodes to has no markup type Forest can trust, so it is read as HTML — and sanitized.
  const binary = type.includes('/') && !type.startsWith('text/') && !/[/+]xml$/.test(type);
  if (mode === 'base64' || binary) {
    const decoded = Buffer.from(textOf(element).replace(/\s+/g, ''), 'base64').toString('utf8');
    return { kind: htmlType || binary ? 'html' : 'text', value: decoded, base };
  }
  if (type === 'xhtml' || type === 'application/xhtml+xml' || (htmlType && element.children.some(isElement))) {
    return { kind: 'html', value: xhtmlToHtml(unwrapDiv(element)), base };
  }
  return { kind: htmlType ? 'html' : 'text', value: textOf(element), base };
}

/** An RSS element's value (no type attribute): `html` for descriptions, a guess for titles. */
function rssValue(element: XmlElement, kind: 'html' | 'guess'): Marked {
  const value = textOf(element);
  return { kind: kind === 'html' || looksLikeHtml(value) ? 'html' : 'text', value, base: element.base };
}

/** The first of several ways a field may be written, in order of preference. */
function firstOf(...candidates: Array<() => Marked | null>): Marked | null {
  for (const candidate of candidates) {
    const value = candidate();
    if (value !== null && value.value.trim() !== '') return value;
  }
  return null;
}

const rssChild = (parent: XmlElement, name: string, kind: 'html' | 'guess') => () => {
  const element = childNamed(parent, RSS, name);
  return element ? rssValue(element, kind) : null;
};
const atomChild = (parent: XmlElement, name: string) => () => {
  const element = childNamed(parent, ATOM, name);
  return element ? textConstruct(element) : null;
};
const dcChild = (parent: XmlElement, name: string, kind: 'html' | 'guess') => () => {
  const element = childNamed(parent, DC, name);
  return element ? rssValue(element, kind) : null;
};

/** A person construct (Atom) or a name (RSS, Dublin Core) as one line. */
function authorOf(parent: XmlElement): string | null {
  for (const person of childrenNamed(parent, ATOM, 'author')) {
    const name = childNamed(person, ATOM, 'name');
    const email = childNamed(person, ATOM, 'email');
    const value = (name ? textOf(name) : '').trim() || (email ? textOf(email) : '').trim();
    if (value) return value;
  }
  for (const element of [childNamed(parent, RSS, 'author'), childNamed(parent, DC, 'creator'), childNamed(parent, DC, 'author')]) {
    const value = element ? textOf(element).replace(/\s+/g, ' ').trim() : '';
    if (value) return value;
  }
  return null;
}

/** The full content of an item: Atom content, content:encoded, or an XHTML body. */
function contentOf(item: XmlElement): Marked | null {
  return firstOf(
    atomChild(item, 'content'),
    () => {
      const encoded = childNamed(item, [NS.content], 'encoded');
      return encoded ? { kind: 'html', value: textOf(encoded), base: encoded.base } : null;
    },
    () => {
      const body = childNamed(item, [NS.xhtml], 'body') ?? childNamed(item, [NS.xhtml], 'div');
      return body ? { kind: 'html', value: xhtmlToHtml(body.children), base: body.base } : null;
    },
  );
}

/**
 * An item's categories: RSS category, Atom category (its term, else its label), each Dublin Core
 * subject whole (one subject per element, as DCMI defines it — not split at spaces), iTunes and
 * Media RSS categories, and the comma-separated `tags` element some generators write.
 */
function categoriesOf(item: XmlElement): string[] {
  const found: string[] = [];
  for (const child of item.children.filter(isElement)) {
    const is = (namespaces: readonly string[], name: string) => child.name === name && namespaces.includes(child.ns);
    if (is(RSS, 'category') || is(DC, 'subject') || is([NS.media], 'category')) found.push(textOf(child));
    else if (is(ATOM, 'category')) found.push(attributeOf(child, 'term') || attributeOf(child, 'label') || textOf(child));
    else if (is([NS.itunes], 'category')) found.push(attributeOf(child, 'text') ?? '');
    else if (is([''], 'tags')) found.push(...textOf(child).split(','));
  }
  return [...new Set(found.map((category) => category.replace(/\s+/g, ' ').trim()).filter((category) => category !== ''))];
}

function idOf(item: XmlElement): string | null {
  const element = childNamed(item, RSS, 'guid') ?? childNamed(item, ATOM, 'id');
  const text = element ? textOf(element).trim() : '';
  if (text) return text;
  // RSS 1.0 names each item by its rdf:about URI.
  return attributeOf(item, 'about', NS.rdf)?.trim() || null;
}

function treeItem(item: XmlElement, feedAuthor: string | null): TreeItem {
  const atom = ATOM.includes(item.ns as (typeof ATOM)[number]);
  // RSS has one body, its description; an item that also carries a summary element (no RSS
  // element, but written) keeps both: the first written is its summary, the other its content
  // unless a full-content element is there — nothing the publisher wrote is dropped.
  const bodies = atom ? [] : item.children.filter(isElement)
    .filter((child) => RSS.includes(child.ns as (typeof RSS)[number]) && (child.name === 'description' || child.name === 'summary') && textOf(child).trim() !== '')
    .map((child) => rssValue(child, 'html'));
  return {
    id: idOf(item),
    title: firstOf(atomChild(item, 'title'), rssChild(item, 'title', 'guess'), dcChild(item, 'title', 'guess')),
    summary: firstOf(atomChild(item, 'summary'), () => bodies[0] ?? null, dcChild(item, 'description', 'html'), dcChild(item, 'abstract', 'html')),
    content: contentOf(item) ?? bodies[1] ?? null,
    // An Atom entry without an author has its feed's (RFC 4287 §4.2.1).
    author: authorOf(item) ?? (atom ? feedAuthor : null),
    categories: categoriesOf(item),
  };
}

/** The fields above for a whole document, or null when its root is not a feed's. */
export function readTreeFeed(root: XmlElement): TreeFeed | null {
  if (root.name === 'feed' && ATOM.includes(root.ns as (typeof ATOM)[number])) {
    const author = authorOf(root);
    return {
      rss090: false,
      title: firstOf(atomChild(root, 'title'), dcChild(root, 'title', 'guess')),
      description: firstOf(atomChild(root, 'subtitle'), atomChild(root, 'tagline'), dcChild(root, 'description', 'html')),
      items: childrenNamed(root, ATOM, 'entry').map((entry) => treeItem(entry, author)),
    };
  }
  const channel = childNamed(root, RSS, 'channel');
  if (!channel || !((root.name === 'rss' && root.ns === '') || (root.name === 'rdf' && root.ns === NS.rdf))) return null;
  // RSS 2.0 puts items in the channel; RSS 1.0 and 0.90 beside it.
  const items = [...childrenNamed(channel, RSS, 'item'), ...childrenNamed(root, RSS, 'item')];
  return {
    rss090: channel.ns === NS.rss090,
    title: firstOf(rssChild(channel, 'title', 'guess'), dcChild(channel, 'title', 'guess')),
    description: firstOf(rssChild(channel, 'description', 'html'), dcChild(channel, 'description', 'html')),
    items: items.map((item) => treeItem(item, null)),
  };
}
