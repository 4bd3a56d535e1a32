import type { EncodedBody } from '../../src/archive/codec.js';
import type { FetchedPage } from '../../src/archive/store.js';
import type { SqliteStore } from '../../src/archive/sqlite/store.js';
import { z } from 'zod';
import type { Settings } from '../../src/config/settings.js';
import { encodeTask, extractTask, type ExtractOutcome } from '../../src/daemon/tasks.js';
import { decideVersion } from '../../src/daemon/versioning.js';
import type { FeedItem } from '../../src/feeds/model.js';
import { NO_HINTS, nextPoll } from '../../src/schedule/policy.js';
import { nextCheck } from '../../src/schedule/revisit.js';
import { emptyState, observePoll, type ScheduleState } from '../../src/schedule/state.js';
import { seededRandom } from '../../src/util/random.js';
import { MONTH_MS, publications, shownAt } from './month.js';
import { dressedPage, pageOf, rssDocument, titleOf } from './pages.js';

/**
 * A month of history for bench:hundred-thousand's steady state (issue #70, item 3b): what Forest
 * would have archived had it followed the bench web's month feeds (month.ts) for the month before
 * `epoch`, written through the archive's own store — the same rows, in the same transactions, as
 * the daemon writes them — on a virtual clock, in time order across feeds (so that rows lie in
 * the archive as a month of work interleaves them):
 * - each feed polled as Forest's own schedule decides (the functions the daemon calls after each
 *   poll), a 304 when the document did not change, its schedule state kept on the feed;
 * - each new item's page captured two seconds after the poll that found it and extracted;
 * - each article revisited on the revisit schedule (`revisit.after`), found unchanged (a capture
 *   without a body, its extraction and a check, as an unchanged revisit records).
 *
 * What is not the daemon's: extraction runs once per distinct real page (608 of them; a million
 * extractions would take hours), and its result stands for every article that shows that page —
 * so articles share content rows and captures share bodies, and the archive is smaller than a
 * month of distinct pages would make it. An object's links are resolved against the article's
 * URL, so the shared result is not exactly what the article's own page gives: the keys are marked
 * as made by the previous extractor version (markKeysPrevious), and the first revisit of a month's
 * article in the run compares like with like by re-extracting its stored capture (a rebase, as
 * after an upgrade) rather than calling the difference an edit. No wrapper is learned during the
 * month (single-page extraction throughout).
 */

export interface MonthFill { feeds: number; polls: number; notModified: number; articles: number; revisits: number; seconds: number }

interface FeedState {
  index: number;
  id: number;
  url: string;
  /** The feed's host origin (its pages' URLs start with it). */
  base: string;
  times: number[];
  schedule: ScheduleState;
  random: () => number;
  etag: string | null;
  /** Item number → item id, for the items seen so far. */
  items: Map<number, number>;
  templateId: number | null;
}

type Event = { at: number; feed: FeedState } & ({ kind: 'poll' } | { kind: 'revisit'; itemId: number; n: number; step: number; page: Page });

interface Page { body: EncodedBody; extracted: ExtractOutcome }

/** A binary min-heap of events by time. */
class Timeline {
  private readonly heap: Event[] = [];
  get size(): number {
    return this.heap.length;
  }

  push(event: Event): void {
    const heap = this.heap;
    heap.push(event);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= heap[i]!.at) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  pop(): Event {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && heap[left]!.at < heap[least]!.at) least = left;
        if (right < heap.length && heap[right]!.at < heap[least]!.at) least = right;
        if (least === i) break;
        [heap[least], heap[i]] = [heap[i]!, heap[least]!];
        i = least;
      }
    }
    return top;
  }
}

export interface MonthOptions {
  /** The feeds' URLs (feed n at index n) and the web's origin for each host's pages. */
  feeds: readonly string[];
  hosts: number;
  sites: readonly Buffer[][];
  /** The CDN origin the pages name (bench/scale/pages.ts). */
  cdn: string;
  /** The run's start: the month ends here. */
  epoch: number;
  settings: Settings;
  progress?: (line: string) => void;
}

/** Store calls per transaction: the store's own transactions nest in it (savepoints), and a commit per call would be most of the time. */
const BATCH = 5000;
/** The fill's page cache, in KiB (1 GiB). */
const FILL_CACHE_KB = 1 << 20;
const idRow = z.object({ id: z.number(), key: z.string() });

export async function fillMonth(store: SqliteStore, options: MonthOptions): Promise<MonthFill> {
  const started = performance.now();
  const { settings, epoch } = options;
  const { db } = store;
  // The month's indexes outgrow SQLite's default page cache (2 MB) in its first day; each lookup
  // then reads pages back through the kernel. The fill is the archive's only user: give it room.
  db.pragma(`cache_size = -${FILL_CACHE_KB}`);
  await store.syncSubscriptions(options.feeds.map((url) => ({ url, tags: [], enabled: true })));
  const ids = new Map(db.prepare('SELECT id, url AS key FROM feeds').all().map((row) => idRow.parse(row)).map((row) => [row.key, row.id]));
  const itemIds = (feedId: number, guids: readonly string[]) => new Map(db.prepare(`SELECT id, guid AS key FROM items WHERE feed_id = ? AND guid IN (${guids.map(() => '?').join(', ')})`)
    .all(feedId, ...guids).map((row) => idRow.parse(row)).map((row) => [row.key, row.id]));
  const titles = new Map(options.sites.flat().map((bytes) => [bytes, titleOf(bytes)]));
  const titleOfPage = (bytes: Buffer) => titles.get(bytes)!;
  const pages = new Map<Buffer, Page>();
  const pageFor = (feed: FeedState, n: number, url: string): Page => {
    const source = pageOf(options.sites, options.hosts, feed.index, n);
    let page = pages.get(source);
    if (!page) {
      const bytes = dressedPage(source, { cdn: options.cdn, photo: null, promo: 0 });
      const extracted = extractTask({
        page: { body: { encoding: 'identity', data: bytes }, contentType: 'text/html', url, feed: { title: titleOfPage(source), summary: null, published: null, updated: null, author: null } },
        maxBytes: settings.extract.maxBytes, templates: [], compare: null,
      });
      pages.set(source, (page = { body: encodeTask({ body: bytes, reference: null }), extracted }));
    }
    return page;
  };
  const timeline = new Timeline();
  const start = epoch - MONTH_MS;
  // The subscriptions' first polls spread over the month's first hour, as a list's first sync is.
  options.feeds.forEach((url, index) => {
    const id = ids.get(url);
    if (id === undefined) throw new Error(`history: ${url} was not subscribed`);
    const feed: FeedState = {
      index, id, url, base: new URL(url).origin, times: publications(index, options.feeds.length, epoch, epoch), schedule: emptyState(),
      random: seededRandom(index + 1), etag: null, items: new Map(), templateId: null,
    };
    timeline.push({ kind: 'poll', at: start + Math.floor((index / options.feeds.length) * 3_600_000), feed });
  });
  const fill: MonthFill = { feeds: options.feeds.length, polls: 0, notModified: 0, articles: 0, revisits: 0, seconds: 0 };
  const page = (url: string, at: number, status: number, contentType: string | null, headers: Record<string, string>): FetchedPage => ({
    url, finalUrl: url, status, headers, contentType, redirects: [], permanentUrl: null, notModified: status === 304, retryAfterMs: null, fetchedAt: new Date(at), durationMs: 20,
  });
  let reported = performance.now();
  let calls = 0;
  db.exec('BEGIN');
  while (timeline.size > 0) {
    if (++calls % BATCH === 0) db.exec('COMMIT; BEGIN');
    const event = timeline.pop();
    if (event.at >= epoch) continue;
    const { feed, at } = event;
    if (performance.now() - reported > 5000) {
      reported = performance.now();
      options.progress?.(`history: day ${((at - start) / 86_400_000).toFixed(1)} of ${MONTH_MS / 86_400_000}, ${fill.polls.toLocaleString('en')} polls, ${fill.articles.toLocaleString('en')} articles, ${fill.revisits.toLocaleString('en')} revisits, ${Math.round((performance.now() - started) / 1000)} s`);
    }
    if (event.kind === 'revisit') {
      const { extracted, body } = event.page;
      const fetched = page(`${feed.base}/a/${feed.index}/${event.n}`, at, 200, 'text/html', { 'content-type': 'text/html' });
      await store.recordRevisitWithoutBody(event.itemId, fetched, body.sha256, { template: { id: feed.templateId! }, canonicalUrl: extracted.canonicalUrl, wrapperId: null, article: extracted.article, hash: extracted.hash },
        (article, capture) => decideVersion(article, capture, extracted, { kind: 'same' }, null, settings.revisit));
      fill.revisits++;
      const next = nextCheck(settings.revisit, event.step, false, fetched.fetchedAt.toISOString());
      if (next.at !== null) timeline.push({ ...event, at: Date.parse(next.at), step: next.step });
      continue;
    }
    // A poll: the document the web serves at `at`, a 304 when it is the one polled last.
    const shown = shownAt(feed.times, at);
    const items = shown.map((n) => ({ guid: `m-${feed.index}-${n}`, n, title: titleOfPage(pageOf(options.sites, options.hosts, feed.index, n)), published: null }));
    const document = rssDocument(feed.index, feed.base, items);
    const notModified = document.etag === feed.etag;
    const state = observePoll(feed.schedule, { at, failed: false, notModified, items: notModified ? null : items.map((item) => ({ guid: item.guid, date: null, isNew: !feed.items.has(item.n) })) });
    const decision = nextPoll(state, NO_HINTS, at, settings.schedule, feed.random);
    const nextAt = Math.max(decision.at.getTime(), at + 1000);
    const parsedItems: FeedItem[] = items.map((item) => ({
      guid: item.guid, title: item.title, link: `${feed.base}/a/${feed.index}/${item.n}`, origLink: null, published: null, updated: null, author: null, summary: null, content: null, categories: [], enclosures: [],
    }));
    await store.recordPoll({ id: feed.id, url: feed.url }, {
      startedAt: new Date(at), durationMs: 5, result: notModified ? 'not-modified' : 'ok',
      fetch: { ...page(feed.url, at, notModified ? 304 : 200, notModified ? null : 'application/rss+xml; charset=utf-8', { etag: document.etag }), bytes: notModified ? 0 : Buffer.byteLength(document.body) },
      parsed: notModified ? null : {
        format: 'rss2.0', warnings: [], items: parsedItems,
        feed: { title: `Feed ${feed.index}`, link: `${feed.base}/`, description: 'bench', language: null, updated: null, ttl: null, skipHours: [], skipDays: [], updatePeriod: null, updateFrequency: null, image: null, hub: null, self: null, prevArchive: null, nextPage: null, generator: null },
      },
      error: null, capturePages: true, revisitChangedItemsAt: new Date(at),
      schedule: { nextPollAt: new Date(nextAt), reason: decision.reason, state: JSON.stringify(state), ratePerHour: decision.ratePerHour, window: decision.window, maxAgeSeconds: null, riskAt: decision.riskAt },
    });
    fill.polls++;
    if (notModified) fill.notModified++;
    feed.schedule = state;
    feed.etag = document.etag;
    timeline.push({ kind: 'poll', at: nextAt, feed });
    const fresh = items.filter((item) => !feed.items.has(item.n)).reverse();
    if (fresh.length === 0) continue;
    const ids = itemIds(feed.id, fresh.map((item) => item.guid));
    for (const [i, item] of fresh.entries()) {
      const itemId = ids.get(item.guid);
      if (itemId === undefined) throw new Error(`history: item ${item.guid} of ${feed.url} was not stored by its poll`);
      feed.items.set(item.n, itemId);
      const link = `${feed.base}/a/${feed.index}/${item.n}`;
      const { body, extracted } = pageFor(feed, item.n, link);
      const fetched = page(link, at + 2000 * (i + 1), 200, 'text/html', { 'content-type': 'text/html' });
      const snapshotId = await store.recordCapture(itemId, fetched, body);
      const capture = await store.storedCapture(snapshotId);
      if (!capture) throw new Error(`history: capture ${snapshotId} was not stored`);
      const stored = await store.recordExtraction(capture, {
        template: feed.templateId === null ? extracted.template : { id: feed.templateId }, canonicalUrl: extracted.canonicalUrl, wrapperId: null, article: extracted.article, hash: extracted.hash,
      }, { rebasedKey: null, countsForTemplate: true }, (article, captured) => decideVersion(article, captured, extracted, { kind: 'first' }, null, settings.revisit));
      feed.templateId ??= stored.templateId;
      fill.articles++;
      const next = nextCheck(settings.revisit, 0, false, fetched.fetchedAt.toISOString());
      if (next.at !== null && feed.templateId !== null) timeline.push({ kind: 'revisit', at: Date.parse(next.at), feed, itemId, n: item.n, step: next.step, page: { body, extracted } });
    }
  }
  db.exec('COMMIT');
  fill.seconds = (performance.now() - started) / 1000;
  return fill;
}
