import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { applyEdit, makeArticle, type ScriptedEdit, type SyntheticArticle } from './articles.js';
import { SyntheticClock } from './clock.js';
import { FEED_PATHS, renderFeed } from './feed-documents.js';
import { esc } from './html.js';
import { seededRandom } from '../util/random.js';
import { DEFAULT_SITES, type Compression, type SiteDefinition } from './sites.js';
import type { Template } from './templates.js';

/** Switches a test flips on a running site. */
export interface Behaviour {
  /** Answer every request with this status. */
  failStatus: number | null;
  /** Delay every response. */
  slowMs: number;
  /** Serve the feed with broken XML (still recoverable). */
  malformedFeed: boolean;
  /** Reset every connection without answering. */
  down: boolean;
  /** Serve article pages in another template (a site redesign). */
  redesign: Template | null;
  /** What became of some articles (by slug) since they were published. */
  fates: Record<string, ArticleFate>;
}

/**
 * Ways an article stops being there: taken down (404), sent to the home page or to another
 * story (soft 404s), or hidden behind a paywall that keeps only a teaser.
 */
export type ArticleFate = 'deleted' | 'to-home' | 'to-other' | 'paywalled';

export interface RequestRecord {
  site: string;
  path: string;
  status: number;
  at: number;
  conditional: boolean;
  userAgent: string | null;
  /** For an article page: which revision of the article it showed (0 = as published). */
  revision?: number;
}

export interface RunningSite {
  definition: SiteDefinition;
  url: string;
  feedUrl: string;
  behaviour: Behaviour;
  server: Server;
}

export interface SyntheticWebOptions {
  sites?: SiteDefinition[];
  clock?: SyntheticClock;
  /** Articles already published when the clock starts. */
  startVisible?: number;
  /** Edits made to articles as the clock runs. */
  edits?: ScriptedEdit[];
  /**
   * Edits count from `releaseEdits()` instead of the clock's start (the demo waits for its first
   * captures); `'until-fetched'`: from the moment every edited article's page has been served
   * once (its first capture: on a loaded machine a daemon's start alone can take seconds).
   */
  holdEdits?: boolean | 'until-fetched';
  host?: string;
}

const HUGE_PAGE_BYTES = 50 * 1024 * 1024;

/** A file every page of a site (or of every site) refers to, with validators: a second fetch is a 304. */
interface Asset {
  type: string;
  body: Buffer;
  etag: string;
}

const asset = (type: string, body: string | Buffer): Asset => {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { type, body: bytes, etag: `"${createHash('sha1').update(bytes).digest('hex').slice(0, 16)}"` };
};

/**
 * A site's stylesheet and logo, the same for all its pages (a capture's requisites are stored
 * once per site, whatever number of pages): a few kilobytes of CSS, as a theme's is, naming a
 * background image.
 */
const siteAssets = (() => {
  const cache = new Map<string, Record<string, Asset>>();
  return (definition: SiteDefinition): Record<string, Asset> => {
    let assets = cache.get(definition.slug);
    if (!assets) {
      const random = seededRandom(definition.slug.length * 7919 + definition.slug.charCodeAt(0));
      const rules = Array.from({ length: 120 }, (_, i) => `.${definition.slug}-${i} { margin: ${Math.floor(random() * 24)}px; color: #${Math.floor(random() * 0xffffff).toString(16).padStart(6, '0')}; }`);
      assets = {
        '/assets/site.css': asset('text/css', `body { font-family: Archive, Georgia, serif; background: url(/assets/paper.png); }\n${rules.join('\n')}\n`),
        '/assets/paper.png': asset('image/png', TINY_PNG),
        '/assets/logo.png': asset('image/png', TINY_PNG),
      };
      cache.set(definition.slug, assets);
    }
    return assets;
  };
})();

/** A valid 1×1 PNG (RFC 2083), so that a browser decodes it. */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** What the CDN every site shares serves: a font stylesheet and its font. */
const CDN_ASSETS: Record<string, Asset> = {
  '/fonts.css': asset('text/css', '@font-face { font-family: Archive; src: url(/archive.woff2) format("woff2"); }\n'),
  '/archive.woff2': asset('font/woff2', Buffer.concat([Buffer.from('wOF2', 'latin1'), Buffer.alloc(2044, 7)])),
};

function sendAsset(request: IncomingMessage, send: (status: number, body: Buffer | string, headers: Record<string, string>) => void, file: Asset): void {
  if (request.headers['if-none-match'] === file.etag) return send(304, '', { etag: file.etag });
  send(200, file.body, { 'content-type': file.type, etag: file.etag, 'cache-control': 'max-age=3600' });
}
let gzipBomb: Buffer | null = null;

/**
 * A local web of made-up sites for tests and the demo: each site on its own loopback port (so
 * each is its own host for politeness), with a feed whose items appear as the clock runs, article
 * pages in the site's template, ETag/Last-Modified with 304s, and switches for failures.
 */
export class SyntheticWeb {
  readonly clock: SyntheticClock;
  readonly sites = new Map<string, RunningSite>();
  readonly requests: RequestRecord[] = [];
  /** The CDN the sites share (their fonts), once started; its requests are recorded as site `cdn`. */
  cdn: { server: Server; url: string } | null = null;
  private readonly definitions: SiteDefinition[];
  private readonly startVisible: number;
  private readonly host: string;
  readonly edits: ScriptedEdit[];
  /** The clock time edits count from; null while they are held. */
  private editsFrom: number | null;
  /** With holdEdits 'until-fetched': the edited pages not served yet, as site and path ending. */
  private readonly unfetched: Array<{ site: string; slug: string }> = [];

  constructor(options: SyntheticWebOptions = {}) {
    this.clock = options.clock ?? new SyntheticClock();
    this.definitions = options.sites ?? DEFAULT_SITES;
    this.startVisible = options.startVisible ?? 8;
    this.host = options.host ?? '127.0.0.1';
    this.edits = [...(options.edits ?? [])].sort((a, b) => a.after - b.after);
    this.editsFrom = options.holdEdits ? null : this.clock.start;
    if (options.holdEdits === 'until-fetched') {
      for (const edit of this.edits) this.unfetched.push({ site: edit.site, slug: makeArticle(edit.site, edit.index, 0).slug });
    }
  }

  /** Starts the held edits' clock now. */
  releaseEdits(): void {
    this.editsFrom ??= this.clock.now();
  }

  /** When an edit is (or will be) made, in clock time; null while edits are held. */
  editTime(edit: ScriptedEdit): number | null {
    return this.editsFrom === null ? null : this.editsFrom + edit.after;
  }

  /** The edits made by now. */
  editsMade(): ScriptedEdit[] {
    const now = this.clock.now();
    return this.edits.filter((edit) => (this.editTime(edit) ?? Infinity) <= now);
  }

  async start(): Promise<this> {
    // One CDN for every site (its fonts): a host the sites share, as real sites share one.
    const cdn = createServer((request, response) => {
      const asset = CDN_ASSETS[new URL(request.url ?? '/', 'http://cdn').pathname];
      this.record('cdn', request, asset ? 200 : 404);
      if (!asset) return void response.writeHead(404).end();
      sendAsset(request, (status, body, headers) => void response.writeHead(status, headers).end(body), asset);
    });
    await new Promise<void>((resolve) => cdn.listen(0, this.host, resolve));
    this.cdn = { server: cdn, url: `http://${this.host}:${(cdn.address() as AddressInfo).port}` };
    for (const definition of this.definitions) {
      const server = createServer((request, response) => {
        this.handle(definition.slug, request, response).catch((error: unknown) => {
          response.statusCode = 500;
          response.end(String(error));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, this.host, resolve));
      const { port } = server.address() as AddressInfo;
      const url = `http://${this.host}:${port}/`;
      this.sites.set(definition.slug, {
        definition,
        url,
        feedUrl: `${url}${FEED_PATHS[definition.format].path}`,
        behaviour: { failStatus: null, slowMs: 0, malformedFeed: false, down: false, redesign: null, fates: {} },
        server,
      });
    }
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all([...[...this.sites.values()].map((site) => site.server), ...(this.cdn ? [this.cdn.server] : [])].map((server) => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    })));
  }

  site(slug: string): RunningSite {
    const site = this.sites.get(slug);
    if (!site) throw new Error(`no synthetic site ${slug}`);
    return site;
  }

  set(slug: string, behaviour: Partial<Behaviour>): void {
    Object.assign(this.site(slug).behaviour, behaviour);
  }

  /** When article `index` of a site is published: the first `startVisible` are out at the start. */
  publishedAt(definition: SiteDefinition, index: number): number {
    return this.clock.start - (this.startVisible - 1) * definition.interval + index * definition.interval - 60_000;
  }

  /** The site's articles published by now, newest first. */
  published(slug: string): SyntheticArticle[] {
    const { definition } = this.site(slug);
    const count = Math.floor((this.clock.now() - this.publishedAt(definition, 0)) / definition.interval) + 1;
    const out: SyntheticArticle[] = [];
    for (let index = count - 1; index >= 0; index--) out.push(this.edited(definition.slug, makeArticle(definition.slug, index, this.publishedAt(definition, index))));
    return out;
  }

  /** The article with the scripted edits made by now. */
  private edited(slug: string, article: SyntheticArticle): SyntheticArticle {
    const now = this.clock.now();
    return this.edits
      .filter((edit) => edit.site === slug && edit.index === article.index && (this.editTime(edit) ?? Infinity) <= now)
      .reduce((current, edit) => applyEdit(current, edit.kind, this.editTime(edit)!), article);
  }

  private record(slug: string, request: IncomingMessage, status: number, revision?: number): void {
    this.requests.push({
      ...(revision !== undefined ? { revision } : {}),
      site: slug,
      path: request.url ?? '/',
      status,
      at: Date.now(),
      conditional: Boolean(request.headers['if-none-match'] || request.headers['if-modified-since']),
      userAgent: request.headers['user-agent'] ?? null,
    });
    if (this.unfetched.length > 0 && this.editsFrom === null) {
      const path = request.url ?? '/';
      this.unfetched.splice(0, this.unfetched.length, ...this.unfetched.filter((page) => !(page.site === slug && path.endsWith(page.slug))));
      if (this.unfetched.length === 0) this.releaseEdits();
    }
  }

  private async handle(slug: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const site = this.site(slug);
    const { behaviour, definition } = site;
    const path = new URL(request.url ?? '/', site.url).pathname;
    if (behaviour.down) {
      this.record(slug, request, 0);
      request.socket.destroy();
      return;
    }
    if (behaviour.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, behaviour.slowMs));
    const send = (status: number, body: string | Buffer, headers: Record<string, string> = {}, compression: Compression = 'identity', revision?: number) => {
      this.record(slug, request, status, revision);
      const accepted = String(request.headers['accept-encoding'] ?? '');
      let bytes = typeof body === 'string' ? Buffer.from(body) : body;
      if (compression !== 'identity' && accepted.includes(compression) && status === 200) {
        bytes = compression === 'gzip' ? gzipSync(bytes) : compression === 'br' ? brotliCompressSync(bytes) : deflateSync(bytes);
        headers['content-encoding'] = compression;
      }
      response.writeHead(status, { 'content-length': String(bytes.length), ...headers });
      response.end(request.method === 'HEAD' ? undefined : bytes);
    };
    if (behaviour.failStatus !== null) {
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      if (behaviour.failStatus === 429 || behaviour.failStatus === 503) headers['retry-after'] = '120';
      return send(behaviour.failStatus, `synthetic failure ${behaviour.failStatus}`, headers);
    }

    const feedPath = `/${FEED_PATHS[definition.format].path}`;
    if (path === feedPath) return this.serveFeed(site, request, send);
    if (path.startsWith('/articles/')) return this.serveArticle(site, path.slice('/articles/'.length), send);
    if (path.startsWith('/r/')) return send(302, '', { location: `${site.url}articles/${path.slice(3)}` });
    if (path.startsWith('/images/')) return send(200, Buffer.from('GIF89a'), { 'content-type': 'image/gif' });
    const asset = siteAssets(definition)[path];
    if (asset) return sendAsset(request, send, asset);
    if (path === '/') {
      const links = this.published(slug).map((article) => `<li><a href="/articles/${esc(article.slug)}">${esc(article.title)}</a></li>`);
      return send(200, `<!DOCTYPE html><html><head><title>${esc(definition.name)}</title><link rel="alternate" type="${FEED_PATHS[definition.format].type.split(';')[0]}" href="${feedPath}"></head><body><h1>${esc(definition.name)}</h1><ul>${links.join('')}</ul></body></html>`, { 'content-type': 'text/html; charset=utf-8' });
    }
    // Fixtures for failure paths.
    if (path === '/_test/moved-permanently') return send(301, '', { location: feedPath });
    if (path === '/_test/moved-temporarily') return send(302, '', { location: feedPath });
    if (path === '/_test/malformed-feed.xml') return send(200, malformedFeed(site), { 'content-type': 'application/rss+xml' });
    if (path === '/_test/hostile-feed.xml') return send(200, hostileFeed(site), { 'content-type': 'application/rss+xml' });
    if (path === '/_test/not-a-feed.xml') return send(200, `<!DOCTYPE html><html><head><title>Oops</title><link rel="alternate" type="application/rss+xml" href="${feedPath}"></head><body>Not here</body></html>`, { 'content-type': 'text/xml' });
    const status = /^\/_test\/status\/(\d{3})$/.exec(path);
    if (status) return send(Number(status[1]), 'status fixture', Number(status[1]) === 429 || Number(status[1]) === 503 ? { 'retry-after': '120' } : {});
    if (path === '/_test/gzip-bomb') {
      // 200 gzip members of 1 MB of zeros each (a reader inflates them one after the other): 200 MB
      // inflated from 200 KB, without this server holding the 200 MB itself. One member compressed
      // once and repeated: compressing the same megabyte 200 times blocked this (the test's own)
      // process for seconds under load, past the fetcher test's request timeout.
      if (!gzipBomb) {
        const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
        gzipBomb = Buffer.concat(Array.from({ length: 200 }, () => member));
      }
      this.record(slug, request, 200);
      response.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': String(gzipBomb.length) });
      response.end(gzipBomb);
      return;
    }
    if (path === '/_test/huge-page') {
      this.record(slug, request, 200);
      response.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.from(`<p>${'lorem ipsum '.repeat(5000)}</p>\n`);
      let sent = 0;
      const write = () => {
        while (sent < HUGE_PAGE_BYTES) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', write);
        }
        response.end();
      };
      response.on('close', () => (sent = HUGE_PAGE_BYTES));
      write();
      return;
    }
    return send(404, 'not found', { 'content-type': 'text/plain' });
  }

  private serveFeed(site: RunningSite, request: IncomingMessage, send: (status: number, body: string, headers?: Record<string, string>, compression?: Compression) => void): void {
    const { definition } = site;
    const articles = this.published(definition.slug).slice(0, definition.window);
    const body = site.behaviour.malformedFeed
      ? malformedFeed(site)
      : renderFeed(definition.format, { siteName: definition.name, siteUrl: site.url, feedUrl: site.feedUrl, articles, trackingLinks: definition.trackingLinks ?? false });
    const etag = `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
    const newest = articles[0]?.publishedAt ?? this.clock.start;
    const lastModified = new Date(Math.floor(newest / 1000) * 1000).toUTCString();
    const headers = { 'content-type': FEED_PATHS[definition.format].type, etag, 'last-modified': lastModified, 'cache-control': 'max-age=60' };
    const inm = request.headers['if-none-match'];
    const ims = request.headers['if-modified-since'];
    const fresh = inm ? inm === etag : ims ? Date.parse(ims) >= Date.parse(lastModified) : false;
    if (fresh) return send(304, '', { etag, 'last-modified': lastModified });
    send(200, body, headers, definition.compression);
  }

  private serveArticle(site: RunningSite, slug: string, send: (status: number, body: string | Buffer, headers?: Record<string, string>, compression?: Compression, revision?: number) => void): void {
    const { definition } = site;
    const published = this.published(definition.slug);
    const position = published.findIndex((article) => article.slug === slug);
    if (position < 0) return send(404, 'no such article', { 'content-type': 'text/plain' });
    const fate = site.behaviour.fates[slug];
    if (fate === 'deleted') return send(404, 'no such article', { 'content-type': 'text/plain' });
    if (fate === 'to-home') return send(302, '', { location: site.url });
    if (fate === 'to-other') {
      const other = published.find((candidate) => candidate.slug !== slug && !site.behaviour.fates[candidate.slug])!;
      return send(301, '', { location: `${site.url}articles/${other.slug}` });
    }
    const original = published[position]!;
    const article = fate === 'paywalled'
      ? { ...original, paragraphs: [`${original.paragraphs[0]!.split('. ')[0]!}. Subscribe to continue reading.`], quote: null, list: null }
      : original;
    const requestRandom = seededRandom(Math.floor(Math.random() * 2 ** 32));
    const others = published.filter((_, i) => i !== position);
    const html = (site.behaviour.redesign ?? definition.template)({
      siteName: definition.name,
      siteUrl: site.url,
      feedUrl: site.feedUrl,
      feedType: FEED_PATHS[definition.format].type.split(';')[0]!,
      article,
      // Related links rotate on every request, as recommendation boxes do.
      related: others.map((other) => ({ other, key: requestRandom() })).sort((a, b) => a.key - b.key).map(({ other }) => other).slice(0, 5),
      now: this.clock.now(),
      requestRandom,
      charset: definition.charset,
      cdn: this.cdn?.url ?? null,
    });
    const body = definition.charset === 'utf-8' ? Buffer.from(html) : iconv.encode(html, definition.charset);
    // The legacy site declares its charset only in <meta>, as old servers did.
    const type = definition.charset === 'utf-8' ? 'text/html; charset=utf-8' : 'text/html';
    send(200, body, { 'content-type': type }, definition.compression, article.revision);
  }

  /** Per article page path: the revisions served, in order of the requests. */
  servedRevisions(): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (const request of this.requests) {
      if (request.revision === undefined) continue;
      const key = `${request.site}${request.path}`;
      out.set(key, [...(out.get(key) ?? []), request.revision]);
    }
    return out;
  }
}

/**
 * A well-formed feed whose items point at pages no archiver should swallow (one of them the
 * cloud metadata address, which must never be fetched), one that is gone, and one good page.
 */
function hostileFeed(site: RunningSite): string {
  const item = (guid: string, url: string) => `<item><title>${guid}</title><link>${url}</link><guid>${guid}</guid></item>`;
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Hostile</title><link>${site.url}</link>
${item('bomb', `${site.url}_test/gzip-bomb`)}${item('huge', `${site.url}_test/huge-page`)}${item('gone', `${site.url}_test/status/404`)}
${item('metadata', 'http://169.254.169.254/latest/meta-data/')}${item('fine', `${site.url}articles/${makeArticle(site.definition.slug, 0, 0).slug}`)}
</channel></rss>`;
}

/** A feed with unclosed tags, an HTML entity XML does not know, and a bare ampersand. */
function malformedFeed(site: RunningSite): string {
  return `<?xml version="1.0"?>
<rss version="2.0"><channel><title>${esc(site.definition.name)} &nbsp;(broken)</title><link>${site.url}</link>
<item><title>Fish & chips <b>recovered</title><link>${site.url}articles/broken-1</link><guid>broken-1</guid><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>
<item><title>Second item<link>${site.url}articles/broken-2</link><guid>broken-2</guid></item>
</channel>`;
}
