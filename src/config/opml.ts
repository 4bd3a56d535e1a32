import { readFileSync } from 'node:fs';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Subscription } from '../archive/feeds.js';
import { ConfigError } from './errors.js';
import { feedUrl } from './subscriptions.js';

/**
 * OPML 2.0 subscription lists (fast-xml-parser). Import keeps titles, site URLs and categories
 * (both the `category` attribute and the folder outlines a feed sits in become tags); export
 * writes them back so that a round trip loses nothing.
 */

type Outline = Record<string | symbol, unknown>;
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const asArray = (value: unknown): Outline[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is Outline => typeof v === 'object' && v !== null);
const attr = (outline: Outline, name: string): string | null => {
  const value = outline[`@_${name}`];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

export function parseOpml(file: string, text: string): Subscription[] {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ConfigError(file, valid.err.line, null, `invalid XML: ${valid.err.msg}`);
  const parser = new XMLParser({ ignoreAttributes: false, captureMetaData: true, processEntities: true, parseTagValue: false, parseAttributeValue: false });
  const document = parser.parse(text) as Record<string, unknown>;
  const opml = document['opml'] as Outline | undefined;
  if (!opml) throw new ConfigError(file, 1, 'opml', 'not an OPML document (no <opml> root)');
  const body = opml['body'] as Outline | undefined;
  if (!body || typeof body !== 'object') throw new ConfigError(file, 1, 'opml.body', 'missing <body>');
  const subscriptions: Subscription[] = [];
  const seen = new Set<string>();
  const walk = (outlines: Outline[], folders: string[]) => {
    for (const outline of outlines) {
      const line = lineAt(text, (outline[META] as { startIndex?: number } | undefined)?.startIndex ?? 0);
      const xmlUrl = attr(outline, 'xmlUrl');
      const title = attr(outline, 'title') ?? attr(outline, 'text');
      const children = asArray(outline['outline']);
      if (!xmlUrl) {
        if (children.length === 0 && attr(outline, 'type')?.toLowerCase() === 'rss') {
          throw new ConfigError(file, line, 'outline.xmlUrl', `feed outline ${title ? `"${title}" ` : ''}has no xmlUrl`);
        }
        walk(children, title ? [...folders, title] : folders);
        continue;
      }
      const url = feedUrl.safeParse(xmlUrl);
      if (!url.success) throw new ConfigError(file, line, 'outline.xmlUrl', `${JSON.stringify(xmlUrl)}: ${url.error.issues[0]!.message}`);
      if (seen.has(url.data)) continue;
      seen.add(url.data);
      const categories = (attr(outline, 'category') ?? '').split(',').map((c) => c.trim().replace(/^\//, '')).filter((c) => c !== '');
      subscriptions.push({
        url: url.data,
        title,
        siteUrl: attr(outline, 'htmlUrl'),
        tags: [...new Set([...folders, ...categories])],
        enabled: true,
      });
      walk(children, folders);
    }
  };
  walk(asArray(body['outline']), []);
  return subscriptions;
}

export function readOpml(file: string): Subscription[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, null, null, `cannot read: ${(error as Error).message}`);
  }
  return parseOpml(file, text);
}

export function toOpml(subscriptions: Array<Subscription & { feedTitle?: string | null }>, now = new Date()): string {
  const builder = new XMLBuilder({ ignoreAttributes: false, format: true, suppressEmptyNode: true, processEntities: true });
  const outlines = subscriptions.map((subscription) => {
    const title = subscription.title ?? subscription.feedTitle ?? subscription.url;
    const outline: Record<string, string> = { '@_type': 'rss', '@_text': title, '@_title': title, '@_xmlUrl': subscription.url };
    if (subscription.siteUrl) outline['@_htmlUrl'] = subscription.siteUrl;
    if (subscription.tags.length > 0) outline['@_category'] = subscription.tags.join(',');
    return outline;
  });
  const xml = builder.build({
    opml: { '@_version': '2.0', head: { title: 'Forest subscriptions', dateCreated: now.toUTCString() }, body: { outline: outlines } },
  }) as string;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
}
