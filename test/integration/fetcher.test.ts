import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { parseFeed } from '../../src/feeds/parse.js';
import { FetchError, Fetcher, type FetcherOptions } from '../../src/net/fetcher.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';

const web = new SyntheticWeb();
const options: FetcherOptions = { userAgent: 'ForestTest/1', connectTimeout: 2000, timeout: 3000, maxBodySize: 2 * 1024 * 1024, maxRedirects: 5, concurrency: 4, perHostDelay: 0, allowPrivateNetworks: ['127.0.0.0/8'] };
const fetcher = new Fetcher(options);

before(() => web.start());
after(() => web.stop());

test('conditional GET: the stored validators get a 304', async () => {
  const { feedUrl } = web.site('ledger');
  const first = await fetcher.fetch(feedUrl);
  assert.equal(first.status, 200);
  assert.ok(first.headers['etag']);
  const second = await fetcher.fetch(feedUrl, { etag: first.headers['etag'], lastModified: first.headers['last-modified'] });
  assert.equal(second.status, 304);
  assert.equal(second.notModified, true);
  assert.equal(second.body.length, 0);
  const byDate = await fetcher.fetch(feedUrl, { lastModified: first.headers['last-modified'] });
  assert.equal(byDate.status, 304);
  const last = web.requests.filter((r) => r.site === 'ledger').at(-1)!;
  assert.equal(last.userAgent, 'ForestTest/1');
});

test('gzip, brotli and deflate bodies are decompressed', async () => {
  for (const slug of ['ledger', 'orbit', 'fieldnotes']) {
    const result = await fetcher.fetch(web.site(slug).feedUrl);
    assert.equal(result.status, 200);
    const feed = await parseFeed(result.body, { url: result.finalUrl, contentType: result.contentType });
    assert.ok(feed.items.length >= 8, `${slug}: ${feed.items.length} items`);
  }
});

test('a permanent redirect reports the new address; a temporary one does not', async () => {
  const site = web.site('ledger');
  const permanent = await fetcher.fetch(`${site.url}_test/moved-permanently`);
  assert.equal(permanent.status, 200);
  assert.equal(permanent.finalUrl, site.feedUrl);
  assert.equal(permanent.permanentUrl, site.feedUrl);
  assert.deepEqual(permanent.redirects.map((r) => r.status), [301]);
  const temporary = await fetcher.fetch(`${site.url}_test/moved-temporarily`);
  assert.equal(temporary.finalUrl, site.feedUrl);
  assert.equal(temporary.permanentUrl, null);
});

test('a body over the limit is refused, also when it only grows on decompression (gzip bomb)', async () => {
  const site = web.site('parish');
  await assert.rejects(fetcher.fetch(`${site.url}_test/huge-page`), (error: unknown) => error instanceof FetchError && error.kind === 'too-large');
  const before = process.memoryUsage().rss;
  await assert.rejects(fetcher.fetch(`${site.url}_test/gzip-bomb`), (error: unknown) => error instanceof FetchError && error.kind === 'too-large' && /decompressed/.test(error.message));
  assert.ok(process.memoryUsage().rss - before < 150 * 1024 * 1024, 'the bomb was not inflated in memory');
});

test('Retry-After on 503 and 429 is reported', async () => {
  const site = web.site('orbit');
  for (const status of [503, 429]) {
    // A fetcher each: the answer pauses the whole host (see network-safety.test.ts).
    const result = await new Fetcher(options).fetch(`${site.url}_test/status/${status}`);
    assert.equal(result.status, status);
    assert.equal(result.retryAfterMs, 120_000);
  }
  const notFound = await fetcher.fetch(`${site.url}_test/status/404`);
  assert.equal(notFound.retryAfterMs, null);
});

test('a slow host times out', async () => {
  const slow = new Fetcher({ ...options, timeout: 300 });
  web.set('fieldnotes', { slowMs: 1500 });
  try {
    await assert.rejects(slow.fetch(web.site('fieldnotes').feedUrl), (error: unknown) => error instanceof FetchError && error.kind === 'timeout');
  } finally {
    web.set('fieldnotes', { slowMs: 0 });
  }
});

test('a dead host is a connection error; an unknown scheme an invalid URL', async () => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
  await assert.rejects(fetcher.fetch(`http://127.0.0.1:${port}/feed`), (error: unknown) => error instanceof FetchError && error.kind === 'connection');
  await assert.rejects(fetcher.fetch('ftp://example.org/feed'), (error: unknown) => error instanceof FetchError && error.kind === 'invalid-url');
});

test('requests to one host are spaced by the politeness delay, other hosts go in parallel', async () => {
  const polite = new Fetcher({ ...options, perHostDelay: 300 });
  const start = web.requests.length;
  const started = Date.now();
  await Promise.all([
    polite.fetch(web.site('ledger').feedUrl),
    polite.fetch(web.site('ledger').feedUrl),
    polite.fetch(web.site('ledger').feedUrl),
    polite.fetch(web.site('orbit').feedUrl),
  ]);
  const ledger = web.requests.slice(start).filter((r) => r.site === 'ledger').map((r) => r.at);
  assert.equal(ledger.length, 3);
  assert.ok(ledger[1]! - ledger[0]! >= 290 && ledger[2]! - ledger[1]! >= 290, `gaps ${ledger[1]! - ledger[0]!}, ${ledger[2]! - ledger[1]!}`);
  const orbit = web.requests.slice(start).find((r) => r.site === 'orbit')!;
  assert.ok(orbit.at - started < 250, 'another host did not wait');
});

test('a finished request leaves no listener on the caller\'s signal (got keeps one until its stream is destroyed)', async () => {
  const controller = new AbortController();
  const quick = new Fetcher({ ...options, perHostDelay: 0 });
  const site = web.site('ledger');
  for (let i = 0; i < 120; i++) {
    const result = await quick.fetch(`${site.url}articles/${i % 2 === 0 ? 'missing' : ''}`, {}, controller.signal);
    assert.ok(result.status >= 200);
  }
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});
