import { normalizeFeedDate } from './dates.js';
import { itemIdentity } from './identity.js';
import type { FeedItem, ParsedFeed } from './model.js';
import { absoluteUrl, sanitizeFeedHtml } from './sanitize.js';
import { attributeOf, childNamed, escapeText, isElement, textOf, type XmlElement } from './xml-tree.js';

/**
 * Microsoft's Channel Definition Format (W3C NOTE-CDFsubmit, 1997; CDF 0.4 as Internet Explorer
 * read it): a CHANNEL with a TITLE, an ABSTRACT and ITEMs, each named by its HREF, sub-channels
 * nested inside, relative links resolved against the nearest channel's BASE. Titles and abstracts
 * are elements in 0.4 and VALUE attributes in the 1997 submission; LASTMOD is `yyyy-mm-ddThh:mm`
 * in GMT. Obsolete since Internet Explorer 7, but an archive meets old channels, and reading them
 * costs a tree walk. Element names arrive lower-cased (xml-tree.ts), as CDF's writers disagreed on case.
 */

/** A CDF document's root: a CHANNEL in no namespace. */
export const isCdfChannel = (root: XmlElement | null): root is XmlElement => root !== null && root.ns === '' && root.name === 'channel';

/** TITLE or ABSTRACT: its text (0.4), else its VALUE (the 1997 submission). */
function valueOf(parent: XmlElement, name: string): string | null {
  const element = childNamed(parent, [''], name);
  if (!element) return null;
  const value = (textOf(element).trim() || attributeOf(element, 'value')?.trim()) ?? '';
  return value === '' ? null : value.replace(/\s+/g, ' ');
}

const lastModified = (element: XmlElement) => normalizeFeedDate(attributeOf(element, 'lastmod'));

/** The items of a channel and of its sub-channels, in document order, each with the base it resolves against. */
function itemsOf(channel: XmlElement, base: string | null): Array<{ item: XmlElement; base: string | null }> {
  const here = absoluteUrl(attributeOf(channel, 'base'), base) ?? base;
  return channel.children.filter(isElement).flatMap((child) => {
    if (child.ns !== '') return [];
    if (child.name === 'item') return [{ item: child, base: here }];
    return child.name === 'channel' ? itemsOf(child, here) : [];
  });
}

function cdfItem(item: XmlElement, base: string | null): FeedItem {
  // An ITEM names its page by HREF, or by an anchor child when HREF is left out (CDF 0.4).
  const anchor = childNamed(item, [''], 'a');
  const link = absoluteUrl(attributeOf(item, 'href') ?? (anchor ? attributeOf(anchor, 'href') : null), base);
  const title = valueOf(item, 'title');
  const updated = lastModified(item);
  const abstract = valueOf(item, 'abstract');
  return {
    guid: itemIdentity({ guid: null, link, title, date: updated }),
    title, link, origLink: null, published: null, updated, author: null,
    summary: abstract === null ? null : sanitizeFeedHtml(escapeText(abstract), base),
    content: null, categories: [], enclosures: [],
  };
}

/** A CDF channel (its root from readXmlTree) to the Feed / Item model. */
export function parseCdf(channel: XmlElement, url: string | null): ParsedFeed {
  const base = absoluteUrl(attributeOf(channel, 'base'), url) ?? url;
  const description = valueOf(channel, 'abstract');
  return {
    format: 'cdf',
    warnings: [],
    feed: {
      title: valueOf(channel, 'title'),
      link: absoluteUrl(attributeOf(channel, 'href'), base),
      description: description === null ? null : sanitizeFeedHtml(escapeText(description), base),
      language: null,
      updated: lastModified(channel),
      ttl: null, skipHours: [], skipDays: [], updatePeriod: null, updateFrequency: null, image: null,
      hub: null, self: null, prevArchive: null, nextPage: null, generator: null,
    },
    items: itemsOf(channel, url).map(({ item, base: itemBase }) => cdfItem(item, itemBase)),
  };
}
