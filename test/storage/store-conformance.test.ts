import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { loadCodec, encodeBody, encodeRequisite } from '../../src/archive/codec.js';
import { diffObjects } from '../../src/archive/diff.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { openArchive } from '../../src/archive/open-archive.js';
import { packContent } from '../../src/archive/packed-content.js';
import type { FetchedPage, HostGate, RequisiteRecord, Store, VersionContent, VersionDecision } from '../../src/archive/store.js';
import { PgDatabase } from '../../src/archive/postgres/database.js';
import { checkedRows, text } from '../../src/archive/rows.js';
import type { ArticleObject } from '../../src/extract/extract.js';
import { EXTRACTOR_VERSION } from '../../src/extract/extract.js';
import type { FeedItem } from '../../src/feeds/model.js';
import { waitFor } from '../helpers/cli.js';
import { startCluster } from '../helpers/pg-cluster.js';
import { tempDir } from '../helpers/temp.js';

/*
 * One Store conformance suite, run against both backends (issue #51 item 6): the same writes
 * through the Store contract, the same answers from its reads. Each backend gets a fresh archive:
 * a SQLite file, and a database on a throwaway PostgreSQL cluster.
 */

before(() => loadCodec());
const cluster = startCluster();
let databases = 0;

const BACKENDS: Array<[string, () => Promise<Store>]> = [
  ['SQLite', () => openArchive({ path: join(tempDir(), 'forest.db'), maxSize: 'unlimited' }, { create: true })],
  ['PostgreSQL', async () => openArchive({ path: '', maxSize: 'unlimited', url: await cluster.createDatabase(`conformance_${++databases}`) })],
];

const T0 = Date.parse('2026-11-02T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const item = (n: number, extra: Partial<FeedItem> = {}): FeedItem => ({
  guid: `g${n}`, title: `Story ${n}`, link: `https://a.example/${n}`, origLink: null, published: at(-n).toISOString(), updated: null, author: null,
  summary: null, content: null, categories: [], enclosures: [], ...extra,
});
const page = (url: string, when: Date): FetchedPage => ({
  url, finalUrl: url, status: 200, headers: { 'content-type': 'text/html', etag: `"${when.getTime()}"` }, contentType: 'text/html', redirects: [], permanentUrl: null,
  notModified: false, retryAfterMs: null, fetchedAt: when, durationMs: 7,
});
const schedule = (when: Date) => ({ nextPollAt: when, reason: 'test', state: '{}', ratePerHour: null, window: null, maxAgeSeconds: null, riskAt: null });
const feedDocument = (items: FeedItem[]) => ({
  format: 'rss2.0' as const, warnings: [], items,
  feed: { title: 'A feed', link: 'https://a.example/', description: null, language: null, updated: null, ttl: null, skipHours: [], skipDays: [], updatePeriod: null, updateFrequency: null, image: null, hub: null, self: null, prevArchive: null, nextPage: null, generator: null },
});

function content(snapshotId: number, when: Date, title: string, paragraphs: string[]): { version: VersionContent; article: ArticleObject } {
  const html = paragraphs.map((text) => `<p>${text}</p>`).join('');
  const object = normalizeArticle({ title, byline: 'Ann Lee', published: null, html });
  const text = paragraphs.join('\n');
  return {
    version: { snapshotId, capturedAt: when.toISOString(), method: 'sigfeed', wrapperId: null, title, byline: 'Ann Lee', published: null, text, html, object, hash: objectHash(object), extractor: EXTRACTOR_VERSION, source: null, packed: packContent(html, object) },
    article: { title, byline: 'Ann Lee', published: null, modified: null, html, text, leadImage: null, language: 'en', method: 'sigfeed', wrapper: null, reason: null, source: null },
  };
}

/** A feed subscribed and polled once, its items (their pages due for capture) recorded. */
async function polledFeed(store: Store, items: FeedItem[]) {
  await store.syncSubscriptions([{ url: 'https://a.example/feed', title: 'A', tags: [], enabled: true }]);
  const [feed] = await store.feeds();
  await store.recordPoll({ id: feed!.id, url: feed!.url }, {
    startedAt: at(0), durationMs: 1, result: 'ok', fetch: { ...page(feed!.url, at(0)), bytes: 100 }, parsed: feedDocument(items),
    error: null, schedule: schedule(at(10)), capturePages: true, revisitChangedItemsAt: null,
  });
  return feed!;
}

/** A small archive written through the contract alone: two feeds' items, pages, versions, an edit, a check. */
async function fill(store: Store) {
  await store.syncSubscriptions([
    { url: 'https://a.example/feed', title: 'A', tags: ['news'], enabled: true },
    { url: 'https://b.example/feed', title: null, tags: [], enabled: true },
  ]);
  const [feedA] = await store.feeds();
  const report = await store.recordPoll({ id: feedA!.id, url: feedA!.url }, {
    startedAt: at(0), durationMs: 12.5, result: 'ok', fetch: { ...page(feedA!.url, at(0)), bytes: 900 }, parsed: feedDocument([item(1), item(2), item(2), item(3)]),
    error: null, schedule: schedule(at(10)), capturePages: true, revisitChangedItemsAt: null,
  });
  assert.deepEqual(report, { newItems: 3, changedItems: 0, changedIds: [] }, 'a guid repeated in one document is one item');
  const due = await store.dueCaptures(at(1), 10);
  assert.deepEqual(due.map((ref) => ref.url), ['https://a.example/1', 'https://a.example/2', 'https://a.example/3'], 'newest item first');
  const paragraphs = ['First paragraph of the story about the harbour-bridge.', "The mayor said it's no."];
  for (const [index, ref] of due.entries()) {
    const when = at(2 + index);
    const snapshotId = await store.recordCapture(ref.id, page(ref.url, when), encodeBody(Buffer.from(`<html><body>${paragraphs.join(' ')} ${index}</body></html>`)));
    const capture = (await store.storedCapture(snapshotId))!;
    const made = content(snapshotId, when, `Story ${index + 1}`, paragraphs);
    await store.recordExtraction(capture, { template: { signature: ['html', 'body'] }, canonicalUrl: null, wrapperId: null, article: made.article, hash: made.version.hash }, { rebasedKey: null, countsForTemplate: true },
      (article): VersionDecision => {
        assert.equal(article, null, 'no article before the first capture');
        return { kind: 'first', article: { itemId: capture.itemId, feedId: capture.feedId, url: capture.url, finalUrl: capture.finalUrl, canonicalUrl: null }, content: made.version, page: { at: when.toISOString(), status: 200, snapshotId, headers: capture.headers }, next: { step: 1, at: at(30).toISOString() } };
      });
  }
  // Article 1 is edited: its revisit's extraction makes version 2.
  const revisits = await store.dueRevisits(at(31), 10);
  assert.equal(revisits.length, 3);
  const first = (await store.articles({}, { limit: 10, offset: 0 })).articles.find((article) => article.url === 'https://a.example/1')!;
  const edited = ['First paragraph of the story about the harbour-bridge.', 'The mayor said yes.'];
  const revisitId = await store.recordRevisit(first.id, page(first.url, at(32)), { kind: 'extract', body: encodeBody(Buffer.from(`<html><body>${edited.join(' ')}</body></html>`)) });
  const capture = (await store.storedCapture(revisitId))!;
  const after = content(revisitId, at(32), 'Story 1', edited);
  const before = (await store.version(first.id, 1))!;
  await store.recordExtraction(capture, { template: null, canonicalUrl: null, wrapperId: null, article: after.article, hash: after.version.hash }, { rebasedKey: null, countsForTemplate: false },
    (article): VersionDecision => {
      assert.equal(article?.latestTextLength, paragraphs.join('\n').length);
      return { kind: 'edit', content: after.version, diff: diffObjects(before.object, after.version.object), page: { at: at(32).toISOString(), status: 200, snapshotId: revisitId }, next: { step: 2, at: null }, reason: null };
    });
  const second = (await store.articles({}, { limit: 10, offset: 0 })).articles.find((article) => article.url === 'https://a.example/2')!;
  await store.recordCheck(second.id, { at: at(33).toISOString(), status: 200, snapshotId: null }, 'unchanged', { step: 2, at: at(90).toISOString() }, 'same object');
  return { first, second };
}

for (const [name, open] of BACKENDS) {
  describe(`the Store on ${name}`, () => {
    test('writes through the contract and reads back the same archive', async () => {
      const store = await open();
      try {
        const { first, second } = await fill(store);
        assert.deepEqual((await store.feeds()).map((feed) => [feed.subscribedUrl, feed.title, feed.tags, feed.enabled]),
          [['https://a.example/feed', 'A', ['news'], true], ['https://b.example/feed', null, [], true]]);
        const statuses = await store.feedStatuses();
        assert.deepEqual(statuses.map((status) => [status.items, status.pages, status.articles, status.versions, status.checks]), [[3, 3, 3, 4, 5], [0, 0, 0, 0, 0]]);
        assert.equal(statuses[0]!.lastPoll, at(0).toISOString());
        assert.equal(statuses[0]!.nextPoll, at(10).toISOString());
        // Totals are counts only; the demo's examples (a capture per feed) are asked for apart.
        const totals = await store.totals();
        assert.deepEqual(Object.keys(totals).sort(), ['articles', 'backlog', 'checks', 'versionsByMethod']);
        assert.equal(totals.articles, 3);
        const examples = await store.examples();
        assert.deepEqual(examples.captures.map((capture) => capture.url), ['https://a.example/1']);
        assert.ok(examples.storedBodyBytes > 0);

        const versions = await store.versions(first.id);
        assert.deepEqual(versions.map((version) => [version.n, version.change, version.title]), [[1, [], 'Story 1'], [2, ['body-edit'], 'Story 1']]);
        assert.deepEqual(versions[1]!.object.blocks.map((block) => block.text), ['First paragraph of the story about the harbour-bridge.', 'The mayor said yes.']);
        assert.deepEqual((await store.checks(second.id)).map((check) => [check.result, check.version, check.reason]), [['changed', 1, 'first capture'], ['unchanged', 1, 'same object']]);
        assert.equal((await store.article(second.id))?.nextCheck, at(90).toISOString());

        // Pages of the list: newest first, by offset and by cursor; filters by tag, feed, change, language.
        const page1 = await store.articlesAfter({}, null, 2);
        const page2 = await store.articlesAfter({}, page1.next, 2);
        assert.deepEqual([...page1.articles, ...page2.articles].map((article) => article.url), ['https://a.example/3', 'https://a.example/2', 'https://a.example/1']);
        assert.equal(page2.next, null);
        assert.equal((await store.articles({ tag: 'news' }, { limit: 10, offset: 0 })).total, 3);
        assert.equal((await store.articles({ tag: 'sport' }, { limit: 10, offset: 0 })).total, 0);
        assert.deepEqual((await store.articles({ changed: true }, { limit: 10, offset: 0 })).articles.map((article) => article.id), [first.id]);
        assert.equal((await store.articles({ language: 'EN' }, { limit: 10, offset: 0 })).total, 3);
        assert.equal((await store.articles({ feed: 'https://b.example/feed' }, { limit: 10, offset: 0 })).total, 0);

        // Forest's search language, the same answers on both engines.
        const hits = async (query: string, options = {}) => (await store.search(query, options)).map((hit) => [hit.article, hit.versions, hit.inLatest]);
        const third = (await store.articles({}, { limit: 1, offset: 0 })).articles[0]!.id;
        assert.deepEqual((await hits('"it\'s no"')).sort(), [[first.id, [1], false], [second.id, [1], true], [third, [1], true]].sort(), 'text an edit removed is found, in the versions it stood in');
        assert.deepEqual((await hits('"mayor said"')).find(([article]) => article === first.id), [first.id, [1, 2], true]);
        assert.deepEqual(await hits('mayor yes'), [[first.id, [2], true]]);
        assert.equal((await store.search('harbour-bridge', {})).length, 3, 'a hyphen is a phrase, not an operator');
        assert.equal((await store.search("it's", {})).length, 3, 'an apostrophe is searched');
        assert.deepEqual(await hits('yes OR nothingsuch'), [[first.id, [2], true]]);
        assert.equal((await store.search('mayor -yes', {})).length, 3, 'articles whose some version has mayor without yes');
        assert.equal((await store.search('title:story', {})).length, 3);
        assert.equal((await store.search('title:mayor', {})).length, 0, 'title: searches titles only');
        assert.equal((await store.search('harb*', {})).length, 3);
        await assert.rejects(store.search('*', {}), /no word to search for/);
        const [snippet] = await store.search('yes', {});
        assert.match(snippet!.snippet, /\[yes\]/i);
        // Each hit of a later page has its own snippet (snippets are made for the page of hits returned).
        const paged = await store.search('harbour', { limit: 1, offset: 1 });
        assert.equal(paged.length, 1);
        assert.match(paged[0]!.snippet, /\[harbour\]/i);
        assert.deepEqual((await store.search('harbour', {}))[1]!.snippet, paged[0]!.snippet);

        // Exports are the same code on both, on each backend's reads.
        const chunks: string[] = [];
        const report = await store.writeJsonl({}, { write: (data) => void chunks.push(String(data)), get bytes() { return chunks.join('').length; } });
        assert.deepEqual([report.articles, report.versions], [3, 4]);
        const cdxj: string[] = [];
        const index = await store.writeCdxj({}, { write: (data) => void cdxj.push(String(data)), bytes: 0 }, 'a.warc', { gzip: false, software: 'test' });
        assert.equal(index.captures, 4);

        // Work queues and the backlog.
        assert.deepEqual(await store.dueCaptures(at(40), 10), []);
        assert.deepEqual((await store.duePolls(at(5), 10)).map((ref) => ref.url), ['https://b.example/feed'], 'the feed never polled is due, the polled one waits');
        const backlog = await store.backlog(at(40));
        assert.deepEqual([backlog.pendingCaptures, backlog.queuedExtractions], [0, 0]);
        assert.equal(await store.enabledFeedCount(), 2);

        // The list: a feed removed is unsubscribed, its archive kept.
        const sync = await store.syncSubscriptions([{ url: 'https://a.example/feed', title: 'A', tags: ['news'], enabled: true }]);
        assert.deepEqual(sync, { added: [], updated: [], removed: ['https://b.example/feed'] });
        assert.equal((await store.feeds()).length, 1);

        // Joining: SQLite's one lease refuses a second daemon while the first's heartbeat is fresh;
        // PostgreSQL registers both (they share the work by claims).
        const me = { owner: 'one', pid: 1, host: 'h' };
        assert.deepEqual(await store.acquireLease({ me, now: at(50), staleAfterMs: 60_000, isAlive: () => true }), { acquired: true });
        const other = await store.acquireLease({ me: { owner: 'two', pid: 2, host: 'h' }, now: at(50), staleAfterMs: 60_000, isAlive: () => true });
        assert.equal(other.acquired, name === 'PostgreSQL');
        assert.deepEqual((await store.daemons()).map((daemon) => daemon.owner), name === 'PostgreSQL' ? ['one', 'two'] : ['one']);
        assert.equal(await store.renewLease('one', at(51), { ok: true }), true);
        await store.releaseLease('one');
        await store.releaseLease('two');
        assert.equal(await store.leaseHolder(), null);

        // Retention sums old polls per day and keeps the day's counts.
        assert.deepEqual(await store.applyRetention({ polls: 60_000, checks: null }, at(100)), { polls: 1, checks: 0, requisites: 0 });
        const history = await store.feedHistory((await store.feeds())[0]!.id, { polls: 10, days: 10 });
        assert.deepEqual([history.polls.length, history.days.map((day) => [day.day, day.polls, day.newItems])], [0, [['2026-11-02', 1, 3]]]);
        assert.ok((await store.verify()).every((check) => check.problems.length === 0), 'check finds nothing wrong');
      } finally {
        await store.close();
      }
    });

    test('due polls: feeds whose items are at risk first, then feeds never polled, then the rest of what is overdue', async () => {
      const store = await open();
      try {
        const urls = ['cost', 'risk', 'fresh', 'learning'].map((name) => `https://${name}.example/feed`);
        await store.syncSubscriptions(urls.map((url) => ({ url, title: null, tags: [], enabled: true })));
        const feeds = await store.feeds();
        const byUrl = (url: string) => feeds.find((feed) => feed.url === url)!;
        // Planned at 10 for delay's sake, at risk only from 30; planned at 11 where the risk binds;
        // planned at 5 with nothing learned; one never polled.
        const plans: Array<[string, number, number | null]> = [[urls[0]!, 10, 30], [urls[1]!, 11, 11], [urls[3]!, 5, null]];
        for (const [url, next, risk] of plans) {
          const feed = byUrl(url);
          await store.recordPoll({ id: feed.id, url }, {
            startedAt: at(0), durationMs: 1, result: 'ok', fetch: { ...page(url, at(0)), bytes: 100 }, parsed: feedDocument([]),
            error: null, schedule: { ...schedule(at(next)), riskAt: risk === null ? null : at(risk) }, capturePages: true, revisitChangedItemsAt: null,
          });
        }
        const hosts = async (now: number, limit: number) => (await store.duePolls(at(now), limit)).map((ref) => new URL(ref.url).hostname.split('.')[0]);
        assert.deepEqual(await hosts(20, 10), ['risk', 'fresh', 'learning', 'cost']);
        assert.deepEqual((await store.duePolls(at(20), 10)).map((ref) => ref.atRisk === true), [true, false, false, false], 'the dispatch lets a poll at risk take any slot');
        assert.deepEqual(await hosts(20, 2), ['risk', 'fresh'], 'a feed never polled before a poll planned for delay');
        assert.deepEqual(await hosts(10.5, 10), ['fresh', 'learning', 'cost'], 'nothing is at risk before it is due');
        assert.deepEqual(await hosts(40, 10), ['risk', 'cost', 'fresh', 'learning'], 'the longest at risk first');
        assert.equal((await store.backlog(at(20))).duePolls, 4);
      } finally {
        await store.close();
      }
    });

    test('requisites\' histories, many URLs in one read: each one\'s last fetch and its last kept one', async () => {
      const store = await open();
      try {
        await polledFeed(store, [item(1), item(2)]);
        const snapshots: number[] = [];
        for (const [index, ref] of (await store.dueCaptures(at(1), 10)).entries()) {
          snapshots.push(await store.recordCapture(ref.id, page(ref.url, at(2 + index)), encodeBody(Buffer.from(`<html><body>page ${index}</body></html>`))));
        }
        const requisite = (url: string, when: Date, status: number, bytes: string | null, etag: string | null = null): RequisiteRecord => ({
          url, kind: 'image', via: 'img src', fetchedAt: when, status, contentType: bytes === null ? null : 'image/png', body: bytes === null ? null : encodeRequisite(Buffer.from(bytes), false),
          etag, lastModified: null, error: bytes === null ? `HTTP ${status}` : null,
        });
        const [logo, gone, photo, never] = ['https://cdn.example/logo.png', 'https://cdn.example/gone.png', 'https://a.example/photo.png', 'https://cdn.example/never.png'];
        await store.recordRequisites(snapshots[0]!, [requisite(logo, at(3), 200, 'logo', '"v1"'), requisite(gone, at(3), 404, null), requisite(photo, at(3), 200, 'photo one')]);
        // The second page: the logo's server failed, the photograph changed.
        await store.recordRequisites(snapshots[1]!, [requisite(logo, at(4), 503, null), requisite(photo, at(4), 200, 'photo two', '"p2"')]);

        // More requisites than one statement lists, and more URLs than one statement reads; one URL asked twice.
        const others = Array.from({ length: 1200 }, (_, n) => `https://cdn.example/other-${n}.png`);
        await store.recordRequisites(snapshots[1]!, others.slice(0, 450).map((url) => requisite(url, at(4), 200, url)));
        const histories = await store.requisiteHistories([...others.slice(0, 700), logo, gone, photo, never, logo, ...others.slice(700)]);
        assert.deepEqual([...histories.keys()].sort(), [photo, gone, logo, ...others.slice(0, 450)].sort(), 'a URL never fetched has no history');
        assert.equal(histories.get(others[449]!)?.kept?.sha256, encodeRequisite(Buffer.from(others[449]!), false).sha256);
        assert.deepEqual(histories.get(logo), {
          last: { fetchedAt: at(4).toISOString(), status: 503, contentType: null, error: 'HTTP 503', kept: false },
          kept: { fetchedAt: at(3).toISOString(), status: 200, sha256: encodeRequisite(Buffer.from('logo'), false).sha256, contentType: 'image/png', etag: '"v1"', lastModified: null },
        }, 'the last fetch failed; the validators are the last kept one\'s');
        assert.deepEqual(histories.get(gone), { last: { fetchedAt: at(3).toISOString(), status: 404, contentType: null, error: 'HTTP 404', kept: false }, kept: null });
        assert.equal(histories.get(photo)?.kept?.etag, '"p2"', 'the newest kept fetch, not the first');
        assert.equal(histories.get(photo)?.last.kept, true);
        assert.equal((await store.requisiteHistories([])).size, 0);
      } finally {
        await store.close();
      }
    });

    test('captures wait for their requisites in the archive: queued with the capture, oldest first, gone once recorded, given up or their body dropped', async () => {
      const store = await open();
      try {
        await polledFeed(store, [item(1), item(2), item(3), item(4)]);
        const refs = await store.dueCaptures(at(1), 10);
        const body = (n: number) => encodeBody(Buffer.from(`<html><body><p>page ${n}</p><img src="/photo-${n}.png"></body></html>`));
        // Three queued with their capture, one not (requisites off, or a page that names none).
        const queued: number[] = [];
        for (const [index, ref] of refs.slice(0, 3).entries()) queued.push(await store.recordCapture(ref.id, page(ref.url, at(2 + index)), body(index), true));
        const alone = await store.recordCapture(refs[3]!.id, page(refs[3]!.url, at(5)), body(3));
        assert.deepEqual(await store.queuedRequisites(10), queued, 'oldest first; a capture not asked for is not queued');
        assert.deepEqual(await store.queuedRequisites(2), queued.slice(0, 2));

        await store.recordRequisites(queued[0]!, [{
          url: 'https://a.example/photo-0.png', kind: 'image', via: 'img src', fetchedAt: at(6), status: 200, contentType: 'image/png',
          body: encodeRequisite(Buffer.from('photo'), false), etag: null, lastModified: null, error: null,
        }]);
        await store.dequeueRequisites(queued[1]!);
        assert.deepEqual(await store.queuedRequisites(10), [queued[2]], 'recorded or given up, a capture leaves the queue');
        assert.equal((await store.backlog(at(7))).queuedRequisites, 1, 'the backlog counts it');

        // A revisit queued for its requisites whose object turned out unchanged loses its body, and with it its place in the queue.
        const capture = (await store.storedCapture(queued[2]!))!;
        const made = content(queued[2]!, at(4), 'Story', ['A paragraph of the story.']);
        await store.recordExtraction(capture, { template: null, canonicalUrl: null, wrapperId: null, article: made.article, hash: made.version.hash }, { rebasedKey: null, countsForTemplate: false },
          (): VersionDecision => ({ kind: 'first', article: { itemId: capture.itemId, feedId: capture.feedId, url: capture.url, finalUrl: capture.finalUrl, canonicalUrl: null }, content: made.version, page: { at: at(4).toISOString(), status: 200, snapshotId: queued[2]! }, next: { step: 1, at: at(30).toISOString() } }));
        const [article] = (await store.articles({}, { limit: 10, offset: 0 })).articles;
        const revisit = await store.recordRevisit(article!.id, page(article!.url, at(40)), { kind: 'extract', body: body(9), requisites: true });
        assert.deepEqual(await store.queuedRequisites(10), [queued[2], revisit]);
        const again = (await store.storedCapture(revisit))!;
        await store.recordExtraction(again, { template: null, canonicalUrl: null, wrapperId: null, article: made.article, hash: made.version.hash }, { rebasedKey: null, countsForTemplate: false },
          (): VersionDecision => ({ kind: 'check', result: 'unchanged', page: { at: at(40).toISOString(), status: 200, snapshotId: revisit }, next: { step: 2, at: at(90).toISOString() }, reason: 'same object' }));
        assert.equal((await store.storedCapture(revisit))?.sha256, null, 'the unchanged revisit keeps its digest alone');
        assert.deepEqual(await store.queuedRequisites(10), [queued[2]], 'and leaves the queue: nothing is left to replay its requisites with');
        assert.ok(!(await store.queuedRequisites(10)).includes(alone));
      } finally {
        await store.close();
      }
    });
  });
}

describe('several daemons on one PostgreSQL archive', () => {
  const join = async (url: string, owner: string, staleAfterMs: number, releaseBatchMs = 0, hostDelayMs = 300) => {
    const store = await openArchive({ path: '', maxSize: 'unlimited', url });
    await store.acquireLease({ me: { owner, pid: 1, host: 'h' }, now: new Date(), staleAfterMs, hostDelayMs, releaseBatchMs, isAlive: () => true });
    return store;
  };

  test('a capture waiting for its requisites is one daemon\'s: another\'s read of the queue passes over it while its claim lives, and takes it once it expired', async () => {
    const url = await cluster.createDatabase(`requisite_queue_${++databases}`);
    const a = await join(url, 'a', 150);
    const b = await join(url, 'b', 150);
    try {
      await polledFeed(a, [item(1), item(2)]);
      const queued: number[] = [];
      for (const ref of await a.dueCaptures(at(1), 10)) queued.push(await a.recordCapture(ref.id, page(ref.url, at(2)), encodeBody(Buffer.from(`<html><body>${ref.url}</body></html>`)), true));
      assert.equal(await a.claim({ kind: 'requisites', id: queued[0]! }, new Date()), true);
      assert.deepEqual(await b.queuedRequisites(10), [queued[1]], 'the one a holds is passed over');
      assert.equal(await b.claim({ kind: 'requisites', id: queued[0]! }, new Date()), false);
      // a dies: once its claim expired, b reads the capture as waiting and takes it.
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.deepEqual(await b.queuedRequisites(10), queued);
      assert.equal(await b.claim({ kind: 'requisites', id: queued[0]! }, new Date()), true);
      await b.dequeueRequisites(queued[0]!);
      await b.release({ kind: 'requisites', id: queued[0]! }, new Date());
      assert.equal(await b.claim({ kind: 'requisites', id: queued[0]! }, new Date()), false, 'done, it is no longer to be claimed');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a unit is claimed by one daemon; a dead one\'s claim is taken over, and its late write is fenced off', async () => {
    const url = await cluster.createDatabase(`claims_${++databases}`);
    const a = await join(url, 'a', 150);
    const b = await join(url, 'b', 150);
    try {
      await a.syncSubscriptions([{ url: 'https://a.example/feed', title: null, tags: [], enabled: true }]);
      const [feed] = await a.feeds();
      const poll = { kind: 'poll', id: feed!.id } as const;
      const now = new Date();
      assert.equal(await a.claim(poll, now), true);
      assert.equal(await b.claim(poll, now), false, 'held by another daemon');
      // a stops beating its heartbeat: once its claim expires, b takes the unit over.
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.equal(await b.claim(poll, new Date()), true, 'an expired claim is taken over');
      const record = (when: Date) => ({
        startedAt: when, durationMs: 5, result: 'ok' as const, fetch: { ...page(feed!.url, when), bytes: 10 }, parsed: feedDocument([item(1)]), error: null,
        schedule: schedule(new Date(when.getTime() + 3600_000)), capturePages: true, revisitChangedItemsAt: null,
      });
      await assert.rejects(a.recordPoll({ id: feed!.id, url: feed!.url }, record(new Date())), (error: Error) => error.name === 'FencedError');
      assert.equal((await a.feedStatuses())[0]!.items, 0, 'the fenced poll wrote nothing');
      assert.deepEqual(await b.recordPoll({ id: feed!.id, url: feed!.url }, record(new Date())), { newItems: 1, changedItems: 0, changedIds: [] });
      await b.release(poll, new Date());
      assert.equal(await a.claim(poll, new Date()), false, 'no longer due: polled an hour ahead');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('units claimed together: each granted or not as alone — held by another daemon, no longer due, or free', async () => {
    const url = await cluster.createDatabase(`claim_all_${++databases}`);
    const a = await join(url, 'a', 60_000);
    const b = await join(url, 'b', 60_000);
    try {
      await a.syncSubscriptions([1, 2, 3].map((n) => ({ url: `https://a.example/feed${n}`, title: null, tags: [], enabled: true })));
      const feeds = await a.feeds();
      const [one, two, three] = feeds.map((feed) => ({ kind: 'poll', id: feed.id }) as const);
      assert.deepEqual(await a.claimAll([one!, two!], new Date()), [true, true]);
      const when = new Date();
      await a.recordPoll({ id: feeds[1]!.id, url: feeds[1]!.url }, {
        startedAt: when, durationMs: 5, result: 'ok', fetch: { ...page(feeds[1]!.url, when), bytes: 10 }, parsed: feedDocument([item(1)]), error: null,
        schedule: schedule(new Date(when.getTime() + 3600_000)), capturePages: true, revisitChangedItemsAt: null,
      });
      await a.release(two!, new Date());
      assert.deepEqual(await b.claimAll([three!, one!, two!], new Date()), [true, false, false], 'free; held by a; polled an hour ahead');
      assert.deepEqual(await a.claimAll([three!, one!], new Date()), [false, true], 'b holds three now; a renews its own');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a claim re-checks what is due with the queues\' own predicates: a disabled feed\'s page is not granted', async () => {
    // The re-check had been written a third time and had lost `feed_enabled = 1` (issue #66):
    // a page of a feed disabled between a pass's read and its claim was captured all the same.
    const url = await cluster.createDatabase(`claim_disabled_${++databases}`);
    const a = await join(url, 'a', 60_000);
    try {
      const list = (enabled: boolean) => [{ url: 'https://a.example/feed', title: null, tags: [], enabled }];
      await a.syncSubscriptions(list(true));
      const [feed] = await a.feeds();
      const when = new Date();
      await a.recordPoll({ id: feed!.id, url: feed!.url }, {
        startedAt: when, durationMs: 5, result: 'ok', fetch: { ...page(feed!.url, when), bytes: 10 }, parsed: feedDocument([item(1)]), error: null,
        schedule: schedule(new Date(when.getTime() + 3600_000)), capturePages: true, revisitChangedItemsAt: null,
      });
      const [capture] = await a.dueCaptures(new Date(), 10);
      assert.ok(capture, 'the page is due');
      await a.syncSubscriptions(list(false));
      assert.deepEqual(await a.dueCaptures(new Date(), 10), [], 'a disabled feed\'s page leaves the queue');
      assert.equal(await a.claim({ kind: 'capture', id: capture.id }, new Date()), false, 'and a claim of it, read before, is refused');
    } finally {
      await a.close();
    }
  });

  test('ended units are given back together: each stays its daemon\'s until the batch, and one claimed again meanwhile is not lost to it', async () => {
    const url = await cluster.createDatabase(`release_batch_${++databases}`);
    const a = await join(url, 'a', 60_000, 100);
    const b = await join(url, 'b', 60_000, 100);
    try {
      await a.syncSubscriptions([1, 2].map((n) => ({ url: `https://a.example/feed${n}`, title: null, tags: [], enabled: true })));
      const [first, second] = (await a.feeds()).map((feed) => ({ kind: 'poll', id: feed.id }) as const);
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      assert.equal(await a.claim(first!, new Date()), true);
      assert.equal(await a.claim(second!, new Date()), true);
      await a.release(first!, new Date());
      await a.release(second!, new Date());
      assert.equal(await b.claim(first!, new Date()), false, 'ended, but not yet given back');
      assert.equal(await a.claim(second!, new Date()), true, 'claimed again by its daemon before the batch');
      await pause(300);
      assert.equal(await b.claim(first!, new Date()), true, 'given back with the batch');
      assert.equal(await b.claim(second!, new Date()), false, 'the batch did not give back a unit claimed again');
      await a.release(second!, new Date());
      await pause(300);
      assert.equal(await b.claim(second!, new Date()), true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a host takes one daemon\'s request at a time, each request\'s rest apart', async () => {
    const url = await cluster.createDatabase(`hosts_${++databases}`);
    const a = await join(url, 'a', 60_000);
    const b = await join(url, 'b', 60_000);
    try {
      // The daemons' page delay is 300 ms (join above); a page's requisites rest their host 30 ms.
      const [page, requisite] = [300, 30];
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const [gateA, gateB] = [a.hostGate()!, b.hostGate()!];
      assert.equal(await gateA.take('a.example', page), 0);
      assert.ok(await gateB.take('a.example', page) > 0, 'in flight for another daemon');
      assert.ok(await gateB.take('a.example', requisite) > 0, 'a lighter request too');
      assert.equal(await gateB.take('b.example', page), 0, 'another host is free');
      await gateA.give('a.example', page);
      const wait = await gateB.take('a.example', page);
      assert.ok(wait > 200 && wait <= 300, `the host rests its delay after a request (${wait} ms left)`);
      // A page's requisite (another daemon's) waits its own pause after the page, not the page pace, as one daemon's host queue has it.
      const light = await gateB.take('a.example', requisite);
      assert.ok(light <= requisite, `a lighter request waits its own rest (${light} ms left)`);
      if (light > 0) {
        await sleep(light + 5);
        assert.equal(await gateB.take('a.example', requisite), 0);
      }
      await gateB.give('a.example', requisite);
      const after = await gateA.take('a.example', page);
      assert.ok(after > 150, `the page pace holds whatever requisites come between (${after} ms left)`);
      await sleep(after + 20);
      assert.equal(await gateA.take('a.example', page), 0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a daemon alone on the archive writes no host per request; one that joins waits until it gates them again, with the rests its last requests left', async () => {
    const url = await cluster.createDatabase(`alone_${++databases}`);
    const db = new PgDatabase(url);
    const hosts = async () => checkedRows(text, await db.column('SELECT host FROM hosts ORDER BY host'), 'hosts');
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // A page rests its host 5 s (long enough for the steps below), a requisite 100 ms.
    const [page, requisite] = [5_000, 100];
    const a = await join(url, 'a', 60_000, 0, page);
    let b: Store | null = null;
    try {
      const gateA = a.hostGate()!;
      const request = async (gate: HostGate, host: string, rest: number) => {
        assert.equal(await gate.take(host, rest), 0, `${host} is free`);
        await gate.give(host, rest);
      };
      await request(gateA, 'before.example', page);
      assert.deepEqual(await hosts(), ['before.example'], 'until its first heartbeat a daemon gates its hosts');
      assert.equal(await a.renewLease('a', new Date(), null), true);
      await request(gateA, 'a.example', page);
      await request(gateA, 'cdn.example', requisite);
      assert.deepEqual(await hosts(), ['before.example'], 'alone, nothing is written per request');

      b = await join(url, 'b', 60_000, 0, page);
      const gateB = b.hostGate()!;
      assert.ok(await gateB.take('free.example', page) > 0, 'a daemon that joins takes no host while another is alone');
      assert.equal(await gateA.take('slow.example', page), 0, 'a request of the daemon alone, in flight when the other joined');
      let shared = false;
      const review = a.renewLease('a', new Date(), null).then(() => (shared = true));
      await sleep(300);
      assert.equal(shared, false, 'the daemon alone gates its hosts again only once its requests in flight have ended');
      assert.ok(await gateB.take('free.example', page) > 0, 'meanwhile the other still waits');
      await gateA.give('slow.example', page);
      await review;
      assert.deepEqual(await hosts(), ['a.example', 'before.example', 'cdn.example', 'slow.example'], 'the rests its requests left are written');
      // The other looks again at most every quarter second (host-gate.ts): it takes a free host once it has.
      await waitFor(async () => (await gateB.take('free.example', page)) === 0, 5_000, 'the other daemon to take a free host');
      await gateB.give('free.example', page);
      const wait = await gateB.take('a.example', page);
      assert.ok(wait > 3_000 && wait <= page, `the alone daemon's page rest holds for the other (${wait} ms left)`);
      assert.equal(await gateB.take('cdn.example', requisite), 0, 'a lighter request waits only its own rest after the last request');
      await gateB.give('cdn.example', requisite);
      await request(gateA, 'both.example', page);
      assert.ok((await hosts()).includes('both.example'), 'two daemons: every request through the table');

      await b.releaseLease('b');
      assert.equal(await a.renewLease('a', new Date(), null), true);
      await request(gateA, 'again.example', page);
      assert.ok(!(await hosts()).includes('again.example'), 'alone again once the other left');
      await a.releaseLease('a');
      assert.ok((await hosts()).includes('again.example'), 'leaving, the daemon leaves its hosts\' rests for those after it');
    } finally {
      await a.close();
      await b?.close();
      await db.close();
    }
  });

  test('a daemon alone that dies holds up one that joins only until its heartbeat is stale', async () => {
    const url = await cluster.createDatabase(`alone_dead_${++databases}`);
    const a = await join(url, 'a', 400);
    let b: Store | null = null;
    try {
      assert.equal(await a.renewLease('a', new Date(), null), true);
      b = await join(url, 'b', 400);
      assert.ok(await b.hostGate()!.take('a.example', 300) > 0, 'a is alone');
      // a beats no more, as if killed.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await b.hostGate()!.take('a.example', 300), 0, 'a\'s heartbeat is stale: it is taken for dead');
    } finally {
      await a.close();
      await b?.close();
    }
  });
});
