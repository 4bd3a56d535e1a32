import * as cheerio from 'cheerio';
import { decodeBody } from '../net/charset.js';
import { absoluteUrl } from '../feeds/sanitize.js';

/** The `<link rel=canonical>` of an HTML page, absolute, or null. */
export function canonicalUrl(body: Buffer, contentType: string | null, pageUrl: string): string | null {
  if (contentType && !/html/i.test(contentType)) return null;
  const head = body.subarray(0, 512 * 1024);
  const $ = cheerio.load(decodeBody(head, contentType).text);
  const href = $('link[rel~="canonical"]').first().attr('href');
  return href ? absoluteUrl(href, pageUrl) : null;
}
