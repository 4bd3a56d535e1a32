import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { decodeHTML } from 'entities';

/**
 * The bench web's pages (bench/scale/web.ts): real pages from ../shared/datasets, a site's pages
 * on each host, and how a served page is dressed. Shared with the history filler
 * (bench/scale/history.ts), which archives the pages the web serves.
 */

/** Pages of one site (a template), as bytes. */
export function sites(DATASETS: string): Buffer[][] {
  const out: Buffer[][] = [];
  for (const set of ['news-2005', 'news-2009', 'sites-2012']) {
    const dir = join(DATASETS, 'same-template', set);
    for (const site of readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()) {
      out.push(readdirSync(join(dir, site)).filter((file) => file.endsWith('.html')).sort().map((file) => readFileSync(join(dir, site, file))));
    }
  }
  const benchmark = join(DATASETS, 'article-benchmark', 'html');
  // The article benchmark's pages are one per site: a host of its own per ten of them.
  const singles = readdirSync(benchmark).sort().map((file) => gunzipSync(readFileSync(join(benchmark, file))));
  for (let i = 0; i < singles.length; i += 10) out.push(singles.slice(i, i + 10));
  return out;
}

/** The page's own title, as a feed item carries its article's title (SIGFEED's signifiers come from it). */
export function titleOf(bytes: Buffer): string {
  const match = /<title[^>]*>([^<]*)<\/title>/i.exec(bytes.toString('utf8'));
  return decodeHTML(match?.[1] ?? '').replace(/\s+/g, ' ').trim() || 'Untitled';
}

/** Inserts `insert` before the first `marker` (case-insensitive), or after it; the bytes unchanged when there is none. */
function inserted(bytes: Buffer, marker: string, insert: string, after = false): Buffer {
  const at = bytes.toString('latin1').toLowerCase().indexOf(marker);
  if (at < 0) return bytes;
  const cut = after ? at + marker.length : at;
  return Buffer.concat([bytes.subarray(0, cut), Buffer.from(insert), bytes.subarray(cut)]);
}

/**
 * A page as the web serves it. What a page needs to be seen: its site's stylesheet and logo, the
 * CDN's fonts (`cdn`: its origin), and, when `photo` names one, a photograph of its own under its
 * headline. What changes on every request around an article: a rotating ad (`promo`).
 */
export function dressedPage(bytes: Buffer, options: { cdn: string; photo: string | null; promo: number }): Buffer {
  let dressed = inserted(bytes, '</head>', `<link rel="stylesheet" href="/assets/site.css"><link rel="icon" href="/assets/logo.png"><link rel="stylesheet" href="${options.cdn}/fonts.css">`);
  if (options.photo !== null) dressed = inserted(dressed, '</h1>', `<figure><img src="${options.photo}" alt=""></figure>`, true);
  const rotating = Buffer.from(`<div class="promo">Sponsored: offer ${options.promo % 97}</div>`);
  const end = dressed.lastIndexOf('</body>');
  return end < 0 ? Buffer.concat([dressed, rotating]) : Buffer.concat([dressed.subarray(0, end), rotating, dressed.subarray(end)]);
}

/** Host n's loopback address (127.0.X.Y: each a host of its own, with its own politeness queue). */
export const addressOf = (host: number): string => `127.0.${1 + Math.floor(host / 250)}.${1 + (host % 250)}`;

/** The page behind a feed's item n: one of its host's site's pages (feed f is on host f mod `hosts`). */
export function pageOf(sites: readonly Buffer[][], hosts: number, feed: number, n: number): Buffer {
  const pages = sites[(feed % hosts) % sites.length]!;
  return pages[(feed + n) % pages.length]!;
}

const escapeXml = (text: string) => text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);

/** One item of a bench feed: its page is /a/FEED/N on the feed's host. */
export interface BenchItem { guid: string; n: number; title: string; published: number | null }

/**
 * The items a first-day feed shows at `now`, newest first: its backlog item, published a day
 * before the start, and for a hot feed (`period`: ms between its items) the newest `window` − 1 of
 * its items — nine published before the start (its rhythm is visible at the first poll, as a busy
 * feed's is) and one every period since. The backlog item stays however many come after it: the
 * first day counts every feed's backlog page, and a daemon whose first poll of a hot feed came a
 * period after the start (subscribing 100,000 feeds to PostgreSQL takes longer than 20 s) would
 * otherwise never see it.
 */
export function firstDayItems(feed: number, now: number, options: { started: number; period: number | null; window: number }): Array<Omit<BenchItem, 'title'>> {
  const { started, period, window } = options;
  const items: Array<Omit<BenchItem, 'title'>> = [];
  if (period !== null) {
    for (let n = Math.floor((now - started) / period); n >= -8 && items.length < window - 1; n--) {
      items.push({ guid: `h-${feed}-${n}`, n: 1000 + n, published: started + n * period });
    }
  }
  items.push({ guid: `b-${feed}`, n: 0, published: started - 86_400_000 - feed * 1000 });
  return items;
}

/** Feed `feed`'s RSS document at `base` (its host's origin), with the ETag the web sends (a conditional GET of the same document gets a 304). */
export function rssDocument(feed: number, base: string, items: readonly BenchItem[]): { body: string; etag: string } {
  const entries = items.map((item) => `<item><guid isPermaLink="false">${item.guid}</guid><title>${escapeXml(item.title)}</title>
<link>${base}/a/${feed}/${item.n}</link>${item.published === null ? '' : `<pubDate>${new Date(item.published).toUTCString()}</pubDate>`}</item>`);
  const body = `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>Feed ${feed}</title><link>${base}/</link><description>bench</description>\n${entries.join('\n')}\n</channel></rss>\n`;
  return { body, etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"` };
}
