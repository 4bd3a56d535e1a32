/**
 * The scale benchmark's web: `hosts` loopback addresses (127.0.X.Y, one politeness queue each),
 * `feeds` RSS feeds spread over them, each with one old (backlog) item, and `hot` feeds that
 * publish a new item every 20–60 s. Article pages are real pages from ../shared/datasets (each
 * host serves one site's pages, so its template is real), with a block that changes on every
 * request, as ads and counters do; each item carries its page's title, as real feeds do. Each
 * page also names what a real page needs (issue #67): its site's stylesheet (a few kilobytes, the
 * same for all the site's pages) and logo, a photograph of its own under its headline, and a font
 * stylesheet and font from one CDN host every site shares (127.0.255.1). Every file has an ETag
 * (a conditional GET gets a 304). Run as its own process so that its CPU is not Forest's: prints
 * one JSON line {port, hosts, feeds, cdn} once listening; `GET /_stats` on the CDN host counts the
 * requests served by kind; SIGTERM stops it.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { MONTH_OPTIONS, publications, shownAt } from './month.js';
import { addressOf, dressedPage, firstDayItems, pageOf, rssDocument, sites, titleOf, type BenchItem } from './pages.js';

const args = new Map(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=') as [string, string]));
const FEEDS = Number(args.get('feeds') ?? 10000);
const HOSTS = Number(args.get('hosts') ?? 500);
const HOT = Number(args.get('hot') ?? 100);
/**
 * `--month=EPOCH` (ms): the feeds of bench:hundred-thousand's steady state instead (month.ts):
 * heavy-tailed rates, a month of items before EPOCH and more after, no dates in the items and no
 * photograph in the pages (so that one extraction of each real page stands for every item that
 * shows it: bench/scale/history.ts).
 */
const MONTH_EPOCH = args.has('month') ? Number(args.get('month')) : null;
const DATASETS = args.get('datasets') ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'datasets');
const started = Date.now();

const SITES = sites(DATASETS);
const TITLES = new Map(SITES.flat().map((bytes) => [bytes, titleOf(bytes)]));
const hostOfFeed = (feed: number) => feed % HOSTS;
const periodOf = (feed: number) => (20 + ((feed * 7) % 41)) * 1000;
const isHot = (feed: number) => feed < HOT;

/** A month-mode feed's publication times, up to three hours past the epoch (longer than any run). */
const monthTimes = new Map<number, number[]>();
const publicationsOf = (feed: number, epoch: number) => {
  let times = monthTimes.get(feed);
  if (!times) monthTimes.set(feed, (times = publications(feed, FEEDS, epoch, epoch + 3 * 3_600_000)));
  return times;
};

/** Items a feed shows now: in month mode its newest items published by now, else firstDayItems. */
function itemsOf(feed: number, now: number): Array<Omit<BenchItem, 'title'>> {
  if (MONTH_EPOCH !== null) {
    const times = publicationsOf(feed, MONTH_EPOCH);
    return shownAt(times, now).map((k) => ({ guid: `m-${feed}-${k}`, n: k, published: null }));
  }
  return firstDayItems(feed, now, { started, period: isHot(feed) ? periodOf(feed) : null, window: MONTH_OPTIONS.window });
}

function feedDocument(feed: number, base: string, now: number): { body: string; etag: string } {
  return rssDocument(feed, base, itemsOf(feed, now).map((item) => ({ ...item, title: TITLES.get(pageOf(SITES, HOSTS, feed, item.n))! })));
}

const CDN_ADDRESS = '127.0.255.1';

let served = 0;
const page = (feed: number, n: number): Buffer => dressedPage(pageOf(SITES, HOSTS, feed, n), {
  cdn: `http://${CDN_ADDRESS}:${port}`, photo: MONTH_EPOCH === null ? `/images/${feed}-${n}.jpg` : null, promo: served++,
});

/** Deterministic filler bytes: a file's content is the same on every request. */
function filler(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let state = (seed * 2654435761) >>> 0;
  for (let i = 0; i < length; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

interface File { type: string; body: Buffer; etag: string }
const file = (type: string, body: Buffer): File => ({ type, body, etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"` });
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A site's stylesheet (8 KB of rules, as a theme's) and logo: the same bytes for every page of the site, whichever host serves it. */
const siteFiles = new Map<number, Record<string, File>>();
function filesOfSite(site: number): Record<string, File> {
  let files = siteFiles.get(site);
  if (!files) {
    const rules = Array.from({ length: 160 }, (_, i) => `.s${site}-${i} { margin: ${(site * 31 + i) % 24}px; color: #${(((site + 1) * 7919 * (i + 1)) % 0xffffff).toString(16).padStart(6, '0')}; }`);
    files = {
      '/assets/site.css': file('text/css', Buffer.from(`body { font-family: Archive, Georgia, serif; }\n${rules.join('\n')}\n`)),
      '/assets/logo.png': file('image/png', Buffer.concat([PNG, filler(site + 1, 3000)])),
    };
    siteFiles.set(site, files);
  }
  return files;
}

const CDN_FILES: Record<string, File> = {
  '/fonts.css': file('text/css', Buffer.from('@font-face { font-family: Archive; src: url(/archive.woff2) format("woff2"); }\n')),
  '/archive.woff2': file('font/woff2', Buffer.concat([Buffer.from('wOF2', 'latin1'), filler(7, 24_000)])),
};

const requests: Record<string, number> = { feed: 0, page: 0, site: 0, photo: 0, cdn: 0, other: 0, notModified: 0 };

function sendFile(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse, served: File): void {
  if (request.headers['if-none-match'] === served.etag) {
    requests['notModified']!++;
    return void response.writeHead(304, { etag: served.etag }).end();
  }
  response.writeHead(200, { 'content-type': served.type, etag: served.etag }).end(served.body);
}

function handler(host: number) {
  return (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => {
    const base = `http://${addressOf(host)}:${port}`;
    const url = request.url ?? '/';
    let match = /^\/feeds\/(\d+)\.xml$/.exec(url);
    if (match) {
      requests['feed']!++;
      const feed = Number(match[1]);
      if (hostOfFeed(feed) !== host || feed >= FEEDS) return void response.writeHead(404).end();
      const { body, etag } = feedDocument(feed, base, Date.now());
      if (request.headers['if-none-match'] === etag) return void response.writeHead(304, { etag }).end();
      return void response.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8', etag }).end(body);
    }
    match = /^\/a\/(\d+)\/(\d+)$/.exec(url);
    if (match) {
      requests['page']!++;
      return void response.writeHead(200, { 'content-type': 'text/html' }).end(page(Number(match[1]), Number(match[2])));
    }
    const own = filesOfSite(host % SITES.length)[url];
    if (own) {
      requests['site']!++;
      return sendFile(request, response, own);
    }
    match = /^\/images\/(\d+)-(\d+)\.jpg$/.exec(url);
    if (match) {
      // A photograph of 30–60 KB, its own for each article.
      requests['photo']!++;
      const seed = Number(match[1]) * 10_007 + Number(match[2]);
      return sendFile(request, response, file('image/jpeg', Buffer.concat([JPEG, filler(seed, 30_000 + (seed % 30_000))])));
    }
    requests['other']!++;
    response.writeHead(404).end();
  };
}

const servers: Server[] = [];
let port = 0;
// One port for every address: the first listener picks it.
for (let host = 0; host < HOSTS; host++) {
  const server = createServer({ keepAlive: true }, handler(host));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, addressOf(host), () => resolve());
  });
  port ||= (server.address() as { port: number }).port;
  servers.push(server);
}
// The CDN every site shares, on the same port; it also answers how many requests were served.
const cdn = createServer({ keepAlive: true }, (request, response) => {
  const url = request.url ?? '/';
  if (url === '/_stats') return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(requests));
  const served = CDN_FILES[url];
  if (!served) return void response.writeHead(404).end();
  requests['cdn']!++;
  sendFile(request, response, served);
});
await new Promise<void>((resolve, reject) => {
  cdn.once('error', reject);
  cdn.listen(port, CDN_ADDRESS, () => resolve());
});
servers.push(cdn);
const feeds = Array.from({ length: FEEDS }, (_, feed) => `http://${addressOf(hostOfFeed(feed))}:${port}/feeds/${feed}.xml`);
process.stdout.write(`${JSON.stringify({ port, hosts: HOSTS, feeds, started, cdn: `http://${CDN_ADDRESS}:${port}`, hot: Array.from({ length: Math.min(HOT, FEEDS) }, (_, feed) => ({ feed, periodMs: periodOf(feed) })) })}\n`);
process.on('SIGTERM', () => {
  for (const server of servers) server.close();
  process.exit(0);
});
