import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseFeed } from '../../src/feeds/parse.js';
import { makeArticle } from '../../src/synthetic/articles.js';
import { Fetcher } from '../../src/net/fetcher.js';
import { SyntheticClock } from '../../src/synthetic/clock.js';
import { SyntheticWeb } from '../../src/synthetic/server.js';

const web = new SyntheticWeb({ clock: new SyntheticClock(Date.UTC(2026, 10, 2, 12), 1), startVisible: 3 });
const fetcher = new Fetcher({ userAgent: 't', connectTimeout: 2000, timeout: 5000, maxBodySize: 5e6, maxRedirects: 5, concurrency: 4, perHostDelay: 0, allowPrivateNetworks: true });
before(() => web.start());
after(() => web.stop());

test('items appear in the feed as the clock passes their publication time', async () => {
  const site = web.site('orbit');
  const first = await fetcher.fetch(site.feedUrl);
  const before = await parseFeed(first.body, { url: site.feedUrl });
  assert.equal(before.items.length, 3);
  const next = web.published('orbit').length;
  const upcoming = `${site.url}articles/${makeArticle('orbit', next, 0).slug}`;
  assert.equal((await fetcher.fetch(upcoming)).status, 404, 'not published yet');

  web.clock.advance(site.definition.interval);
  const second = await fetcher.fetch(site.feedUrl, { etag: first.headers['etag'] });
  assert.equal(second.status, 200, 'the new item changed the ETag');
  const after = await parseFeed(second.body, { url: site.feedUrl });
  assert.equal(after.items.length, 4);
  assert.equal(after.items[0]!.link, upcoming);
  assert.equal((await fetcher.fetch(upcoming)).status, 200);
});

test('the feed shows only its window of most recent items', async () => {
  const site = web.site('fieldnotes');
  web.clock.advance(site.definition.interval * 20);
  const feed = await parseFeed((await fetcher.fetch(site.feedUrl)).body, { url: site.feedUrl });
  assert.equal(feed.items.length, site.definition.window);
});

test('article pages carry the template around the article, different on every request', async () => {
  const site = web.site('ledger');
  const article = web.published('ledger')[0]!;
  const url = `${site.url}articles/${article.slug}`;
  const [a, b] = [await fetcher.fetch(url), await fetcher.fetch(url)];
  const text = a.body.toString('utf8');
  assert.ok(text.includes(article.title));
  assert.ok(text.includes(article.paragraphs[0]!.slice(0, 40)));
  assert.match(text, /class="sidebar"/);
  assert.notEqual(a.body.toString(), b.body.toString(), 'ads and counters rotate');
});

test('the legacy site serves windows-1252 declared only in <meta>', async () => {
  const site = web.site('fieldnotes');
  const page = await fetcher.fetch(`${site.url}articles/${web.published('fieldnotes')[0]!.slug}`);
  assert.equal(page.contentType, 'text/html');
  assert.ok(page.body.includes(Buffer.from('Caf\xe9', 'latin1')));
  assert.match(page.body.toString('latin1'), /<meta charset="windows-1252">/);
});
