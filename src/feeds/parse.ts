import * as cheerio from 'cheerio';
import { decodeBody } from '../net/charset.js';
import { isCdfChannel, parseCdf } from './cdf.js';
import { parseJsonFeed } from './json-feed.js';
import { FeedParseError, type ParsedFeed } from './model.js';
import { absoluteUrl } from './sanitize.js';
import { parseXmlFeed } from './xml-feed.js';
import { readXmlTree } from './xml-tree.js';

export interface ParseFeedOptions {
  /** The document's URL: relative links are resolved against it. */
  url?: string | null;
  /** The HTTP Content-Type, for its charset. */
  contentType?: string | null;
}

/** An HTML page where a feed was expected: say so, and point at the feed it links to if any. */
function htmlPageError(html: string, url: string | null): FeedParseError {
  const $ = cheerio.load(html.slice(0, 256 * 1024));
  const alternate = $('link[rel~="alternate"]')
    .filter((_, link) => /(rss|atom|feed)\+?(xml|json)?/i.test($(link).attr('type') ?? ''))
    .first()
    .attr('href');
  const hint = alternate ? ` (it links to a feed at ${absoluteUrl(alternate, url)})` : '';
  return new FeedParseError(`not a feed: the document is an HTML page${hint}`);
}

/** Any supported feed document, as bytes or text, to the Feed / Item model. */
export async function parseFeed(body: Uint8Array | string, options: ParseFeedOptions = {}): Promise<ParsedFeed> {
  const url = options.url ?? null;
  let text: string;
  const warnings: string[] = [];
  if (typeof body === 'string') {
    text = body;
  } else {
    const decoded = decodeBody(body, options.contentType);
    text = decoded.text;
    if (decoded.warning) warnings.push(decoded.warning);
  }
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start === '') throw new FeedParseError('not a feed: the document is empty');
  if (start.startsWith('{')) return withWarnings(parseJsonFeed(start, url), warnings);
  const head = start.slice(0, 2048).toLowerCase();
  const looksLikeHtml = /^(<!--[\s\S]*?-->\s*)*<!doctype html|^<html[\s>]/.test(head) && !/<(rss|feed|rdf:rdf)[\s>]/.test(head);
  if (looksLikeHtml) throw htmlPageError(start, url);
  try {
    return withWarnings(await parseXmlFeed(start, url), warnings);
  } catch (error) {
    if (!(error instanceof FeedParseError)) throw error;
    // feedparser knows RSS and Atom roots only; a CDF channel is read from the tree (cdf.ts).
    const root = /<channel[\s>]/i.test(head) ? readXmlTree(start, url) : null;
    if (isCdfChannel(root)) return withWarnings(parseCdf(root, url), warnings);
    if (/<html[\s>]/i.test(start.slice(0, 4096))) throw htmlPageError(start, url);
    throw error;
  }
}

function withWarnings(parsed: ParsedFeed, warnings: string[]): ParsedFeed {
  return warnings.length === 0 ? parsed : { ...parsed, warnings: [...warnings, ...parsed.warnings] };
}
