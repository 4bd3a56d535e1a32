import { readFileSync } from 'node:fs';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Subscription } from '../archive/store.js';
import { ConfigError } from './errors.js';
import { cronExpression, feedUrl } from './subscriptions.js';
import { xmlChars } from '../util/xml-chars.js';

/**
 * OPML 2.0 subscription lists (fast-xml-parser). Import keeps titles, site URLs and categories
 * (both the `category` attribute and the folder outlines a feed sits in become tags), and
 * Forest's own disabled flag and cron schedule; export writes them all back so that a round
 * trip loses nothing.
 */

type Outline = Record<string | symbol, unknown>;

/**
 * What OPML has no attribute for — a feed that is subscribed but not polled, a cron schedule —
 * goes into attributes of Forest's own namespace, which other readers ignore. Import reads them
 * by this prefix (the prefix Forest itself writes).
 */
const NAMESPACE = 'https://forest-archiver.invalid/opml/1';
const PREFIX = 'forest';
const META = XMLParser.getMetaDataSymbol() as unknown as symbol;

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line of an outline, counted only when there is an error to report (counting each would be quadratic). */
const lineOfOutline = (text: string, outline: Outline) => lineAt(text, (outline[META] as { startIndex?: number } | undefined)?.startIndex ?? 0);

const asArray = (value: unknown): Outline[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is Outline => typeof v === 'object' && v !== null);
const attr = (outline: Outline, name: string): string | null => {
  const value = outline[`@_${name}`];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

/**
 * fast-xml-parser's validation error in words, on the line to fix. Elements still open at the
 * end of the document come as a JSON list of tag names ("Invalid '[ "opml", "body" ]' found."),
 * and a mismatched end tag is reported where it was noticed: both point at the element that is
 * not closed, on the line that opens it.
 */
function xmlError(file: string, text: string, error: { code: string; msg: string; line: number }): ConfigError {
  const unclosed = error.code === 'InvalidXml' ? /^Invalid '(\[[\s\S]*\])' found\.$/.exec(error.msg) : null;
  const names = unclosed ? (JSON.parse(unclosed[1]!) as unknown) : null;
  if (Array.isArray(names) && names.length > 0 && names.every((name) => typeof name === 'string')) {
    const innermost = names.at(-1) as string;
    const opened = text.lastIndexOf(`<${innermost}`);
    const outer = names.slice(0, -1).map((name) => `<${name}>`).join(' › ');
    return new ConfigError(file, opened >= 0 ? lineAt(text, opened) : null, null,
      `invalid XML: <${innermost}> is opened here and never closed${outer ? ` (inside ${outer})` : ''}`);
  }
  const mismatched = /^Expected closing tag '(.+)' \(opened in line (\d+), col \d+\) instead of closing tag '(.+)'\.$/.exec(error.msg);
  if (mismatched) {
    return new ConfigError(file, Number(mismatched[2]), null,
      `invalid XML: <${mismatched[1]}> is opened here and not closed before </${mismatched[3]}> on line ${error.line}`);
  }
  return new ConfigError(file, error.line, null, `invalid XML: ${error.msg}`);
}

export function parseOpml(file: string, text: string): Subscription[] {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw xmlError(file, text, valid.err);
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
      const xmlUrl = attr(outline, 'xmlUrl');
      const title = attr(outline, 'title') ?? attr(outline, 'text');
      const children = asArray(outline['outline']);
      if (!xmlUrl) {
        if (children.length === 0 && attr(outline, 'type')?.toLowerCase() === 'rss') {
          throw new ConfigError(file, lineOfOutline(text, outline), 'outline.xmlUrl', `feed outline ${title ? `"${title}" ` : ''}has no xmlUrl`);
        }
        walk(children, title ? [...folders, title] : folders);
        continue;
      }
      const url = feedUrl.safeParse(xmlUrl);
      if (!url.success) throw new ConfigError(file, lineOfOutline(text, outline), 'outline.xmlUrl', `${JSON.stringify(xmlUrl)}: ${url.error.issues[0]!.message}`);
      if (seen.has(url.data)) continue;
      seen.add(url.data);
      const categories = (attr(outline, 'category') ?? '').split(',').map((c) => c.trim().replace(/^\//, '')).filter((c) => c !== '');
      const schedule = attr(outline, `${PREFIX}:schedule`);
      if (schedule !== null && !cronExpression.safeParse(schedule).success) {
        throw new ConfigError(file, lineOfOutline(text, outline), `outline.${PREFIX}:schedule`, `${JSON.stringify(schedule)} is not a cron expression`);
      }
      subscriptions.push({
        url: url.data,
        title,
        siteUrl: attr(outline, 'htmlUrl'),
        tags: [...new Set([...folders, ...categories])],
        schedule,
        enabled: attr(outline, `${PREFIX}:disabled`) !== 'true',
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
  const builder = new XMLBuilder({ ignoreAttributes: false, format: true, suppressEmptyNode: true, suppressBooleanAttributes: false, processEntities: true });
  const outlines = subscriptions.map((subscription) => {
    const title = subscription.title ?? subscription.feedTitle ?? subscription.url;
    const outline: Record<string, string> = { '@_type': 'rss', '@_text': title, '@_title': title, '@_xmlUrl': subscription.url };
    if (subscription.siteUrl) outline['@_htmlUrl'] = subscription.siteUrl;
    if (subscription.tags.length > 0) outline['@_category'] = subscription.tags.join(',');
    if (subscription.schedule) outline[`@_${PREFIX}:schedule`] = subscription.schedule;
    if (!subscription.enabled) outline[`@_${PREFIX}:disabled`] = 'true';
    return outline;
  });
  const xml = builder.build({
    opml: { '@_version': '2.0', [`@_xmlns:${PREFIX}`]: NAMESPACE, head: { title: 'Forest subscriptions', dateCreated: now.toUTCString() }, body: { outline: outlines } },
  }) as string;
  return xmlChars(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
}
