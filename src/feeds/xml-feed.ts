import { XMLValidator } from 'fast-xml-parser';
import FeedParser from 'feedparser';
import { normalizeFeedDate } from './dates.js';
import { itemIdentity } from './identity.js';
import { FeedParseError, type Enclosure, type FeedFormat, type FeedInfo, type FeedItem, type ParsedFeed } from './model.js';
import { attribute, nodes, text } from './raw.js';
import { absoluteUrl, plainText, sanitizeFeedHtml } from './sanitize.js';
import { readTreeFeed, type Marked, type TreeFeed, type TreeItem } from './xml-fields.js';
import { escapeText, readXmlTree } from './xml-tree.js';

/**
 * RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 through feedparser: a SAX parser in non-strict mode, so
 * unclosed tags, undeclared (HTML) entities and stray markup are recovered rather than fatal,
 * and — SAX reads no DTD — declared entities are never expanded (no billion-laughs) and external
 * entities never fetched. It also resolves xml:base. What it leaves to us: dates (it uses
 * `new Date`, which misreads many), sanitizing, the publisher's scheduling hints, and every field
 * whose markup matters — titles, descriptions, summaries, contents, authors, identities — which
 * are read from a namespace-resolved tree of the same document (xml-fields.ts).
 */

/** A title: plain text (HTML reduced to its text; text kept as written, markup characters included). */
function titleText(marked: Marked | null | undefined): string | null {
  if (!marked) return null;
  if (marked.kind === 'html') return plainText(marked.value);
  const text = marked.value.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** A description, summary or content: sanitized HTML, its links resolved against its xml:base. */
function htmlOf(marked: Marked | null | undefined, fallbackBase: string | null): string | null {
  if (!marked) return null;
  return sanitizeFeedHtml(marked.kind === 'html' ? marked.value : escapeText(marked.value), marked.base ?? fallbackBase);
}

type Meta = FeedParser.Meta & Record<string, unknown>;
type Item = FeedParser.Item & Record<string, unknown>;

function formatOf(meta: Meta): FeedFormat {
  const type = meta['#type'];
  const version = String(meta['#version'] ?? '');
  if (type === 'atom') return version === '0.3' ? 'atom0.3' : 'atom1.0';
  if (type === 'rdf') return version.startsWith('0.9') ? 'rss0.9x' : 'rss1.0';
  if (version.startsWith('0.9')) return 'rss0.9x';
  return 'rss2.0';
}

function dateOf(raw: unknown, keys: string[], warnings: string[], where: string): string | null {
  const value = text(raw, ...keys);
  if (value === null) return null;
  const normalized = normalizeFeedDate(value);
  if (normalized === null) warnings.push(`${where}: unreadable date ${JSON.stringify(value)}`);
  return normalized;
}

/** The feed's own `<link rel=…>` (Atom, or atom:link inside RSS) with that relation. */
function linkOf(meta: Meta, rel: string): string | null {
  for (const link of [...nodes(meta, 'atom:link'), ...nodes(meta, 'atom10:link')]) {
    if ((attribute(link, 'rel') ?? '').toLowerCase().split(/\s+/).includes(rel)) return attribute(link, 'href');
  }
  return null;
}

function feedInfo(meta: Meta, tree: TreeFeed | null, url: string | null, warnings: string[]): FeedInfo {
  const ttl = Number.parseInt(text(meta, 'rss:ttl') ?? '', 10);
  // feedparser names the syndication module's namespace "syn"; documents usually write "sy".
  const frequency = Number.parseInt(text(meta, 'syn:updatefrequency', 'sy:updatefrequency') ?? '', 10);
  const skipHours = nodes(meta, 'rss:skiphours')
    .flatMap((node) => nodes(node, 'hour'))
    .map((hour) => Number.parseInt(hour['#'] ?? '', 10))
    .filter((hour) => Number.isInteger(hour) && hour >= 0 && hour <= 24)
    .map((hour) => hour % 24);
  const skipDays = nodes(meta, 'rss:skipdays')
    .flatMap((node) => nodes(node, 'day'))
    .map((day) => (day['#'] ?? '').trim())
    .filter((day) => day !== '');
  return {
    title: tree ? titleText(tree.title) : plainText(meta.title),
    link: absoluteUrl(meta.link, url),
    description: tree ? htmlOf(tree.description, url) : sanitizeFeedHtml(meta.description, meta.link ?? url),
    language: meta.language ?? text(meta, 'dc:language'),
    updated: dateOf(meta, ['atom:updated', 'atom:modified', 'rss:lastbuilddate', 'dc:date', 'rss:pubdate'], warnings, 'feed'),
    ttl: Number.isInteger(ttl) && ttl > 0 ? ttl : null,
    skipHours: [...new Set(skipHours)].sort((a, b) => a - b),
    skipDays: [...new Set(skipDays)],
    updatePeriod: text(meta, 'syn:updateperiod', 'sy:updateperiod')?.toLowerCase() ?? null,
    updateFrequency: Number.isInteger(frequency) && frequency > 0 ? frequency : null,
    image: absoluteUrl(meta.image?.url, url),
    hub: absoluteUrl(linkOf(meta, 'hub'), url),
    self: absoluteUrl(linkOf(meta, 'self'), url),
    prevArchive: absoluteUrl(linkOf(meta, 'prev-archive'), url),
    nextPage: absoluteUrl(linkOf(meta, 'next'), url),
    generator: meta.generator ?? null,
  };
}

function enclosuresOf(item: Item, base: string | null): Enclosure[] {
  return (item.enclosures ?? [])
    .filter((enclosure) => enclosure.url)
    .map((enclosure) => {
      const length = Number.parseInt(String(enclosure.length ?? ''), 10);
      return { url: absoluteUrl(enclosure.url, base)!, type: enclosure.type ?? null, length: Number.isFinite(length) && length >= 0 ? length : null };
    });
}

/** What feedparser alone makes of an item's marked-up fields (when the tree could not be matched to its items). */
function feedparserFields(item: Item, base: string | null): Pick<FeedItem, 'title' | 'author' | 'summary' | 'content' | 'categories'> & { id: string | null } {
  const summary = item.summary && item.summary !== item.description ? item.summary : null;
  const description = item.description ?? null;
  // RSS puts the body in description (or content:encoded); Atom in content, with summary apart.
  const content = text(item, 'content:encoded') !== null || nodes(item, 'atom:content').length > 0 ? description : null;
  return {
    id: item.guid ?? null,
    title: plainText(item.title),
    author: plainText(item.author),
    summary: sanitizeFeedHtml(summary ?? (content === null ? description : null), base),
    content: sanitizeFeedHtml(content, base),
    categories: [...new Set((item.categories ?? []).map((category) => plainText(category)).filter((c): c is string => c !== null))],
  };
}

function feedItem(item: Item, tree: TreeItem | null, index: number, url: string | null, warnings: string[]): FeedItem {
  const where = `item ${index + 1}`;
  const link = absoluteUrl(item.link, url);
  const base = link ?? url;
  const published = dateOf(item, ['atom:published', 'atom:issued', 'rss:pubdate', 'dc:date', 'atom:created', 'dcterms:issued', 'dcterms:created'], warnings, where);
  const updated = dateOf(item, ['atom:updated', 'atom:modified', 'dcterms:modified'], warnings, where);
  const fields = tree
    ? {
        id: tree.id,
        title: titleText(tree.title),
        // feedparser lends an RSS item its channel's dc:creator; the tree keeps to the item.
        author: tree.author ?? plainText(item.author),
        summary: htmlOf(tree.summary, url),
        content: htmlOf(tree.content, url),
        categories: tree.categories,
      }
    : feedparserFields(item, base);
  return {
    guid: itemIdentity({ guid: fields.id, link, title: fields.title, date: published ?? updated }),
    title: fields.title,
    link,
    origLink: absoluteUrl(item.origlink ?? text(item, 'feedburner:origlink'), base),
    published,
    updated,
    author: fields.author,
    summary: fields.summary,
    content: fields.content,
    categories: fields.categories,
    enclosures: enclosuresOf(item, base),
  };
}

const XML_ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)([a-z][a-z0-9]*);/i;

/**
 * What is wrong with the document as XML, for the warnings: the lenient parse recovers from it,
 * but the user should know the publisher's feed is broken. (A strict validator pass, no
 * entities expanded.)
 */
function wellFormednessWarnings(xml: string): string[] {
  const warnings: string[] = [];
  const result = XMLValidator.validate(xml);
  if (result !== true) warnings.push(`not well-formed XML (line ${result.err.line}: ${result.err.msg}); recovered leniently`);
  const entity = XML_ENTITY.exec(xml);
  if (entity && !xml.includes(`<!ENTITY ${entity[1]}`)) warnings.push(`undeclared entity &${entity[1]}; read as its HTML meaning`);
  return warnings;
}

/** Reads an RSS or Atom document (already decoded to text). */
export function parseXmlFeed(xml: string, url: string | null): Promise<ParsedFeed> {
  return new Promise((resolve, reject) => {
    const parser = new FeedParser({ feedurl: url ?? undefined, addmeta: false, resume_saxerror: true });
    const items: Item[] = [];
    const saxErrors: string[] = [];
    let fatal: Error | null = null;
    parser.on('error', (error: Error) => {
      // feedparser reports SAX errors it recovered from, and "Not a feed" which it cannot.
      if (/not a feed/i.test(error.message)) fatal = error;
      else saxErrors.push(error.message.split('\n')[0]!);
    });
    parser.on('readable', () => {
      let item: Item | null;
      while ((item = parser.read() as Item | null)) items.push(item);
    });
    parser.on('end', () => {
      if (fatal || !parser.meta?.['#type']) {
        reject(new FeedParseError('not a feed: no <rss>, <rdf:RDF> or <feed> root element'));
        return;
      }
      const warnings = [...wellFormednessWarnings(xml), ...[...new Set(saxErrors)].map((message) => `recovered from malformed XML: ${message}`)];
      const meta = parser.meta as Meta;
      const root = readXmlTree(xml, url);
      const tree = root ? readTreeFeed(root) : null;
      // The tree's items are matched to feedparser's by position; if they disagree (a document
      // broken enough to be read differently), feedparser's reading stands alone.
      const treeItems = tree && tree.items.length === items.length ? tree.items : null;
      if (tree && !treeItems) warnings.push(`items read two ways disagree (${items.length} and ${tree.items.length}); titles and contents as feedparser read them`);
      resolve({
        format: tree?.rss090 ? 'rss0.90' : formatOf(meta),
        warnings,
        feed: feedInfo(meta, tree, url, warnings),
        items: items.map((item, index) => feedItem(item, treeItems?.[index] ?? null, index, url, warnings)),
      });
    });
    parser.end(xml);
  });
}
