import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeGap, documentBefore, gapRecord, gapSuspected, walkBack } from '../../src/daemon/gap-recovery.js';
import type { FeedInfo, FeedItem, ParsedFeed } from '../../src/feeds/model.js';
import { emptyState, observePoll } from '../../src/schedule/state.js';

const info = (extra: Partial<FeedInfo> = {}): FeedInfo => ({
  title: null, link: null, description: null, language: null, updated: null, ttl: null, skipHours: [], skipDays: [], updatePeriod: null,
  updateFrequency: null, image: null, hub: null, self: null, prevArchive: null, nextPage: null, generator: null, ...extra,
});
const item = (guid: string): FeedItem => ({ guid, title: guid, link: `https://a.example/${guid}`, summary: null, content: null, published: null, updated: null, author: null, categories: [], enclosures: [], origLink: null });
const feed = (guids: string[], extra: Partial<FeedInfo> = {}): ParsedFeed => ({ format: 'atom1.0', warnings: [], feed: info(extra), items: guids.map(item) });

test('gap suspected: a document sharing nothing with every item seen, whatever its size', () => {
  const known = new Set(['a', 'b', 'c']);
  assert.equal(gapSuspected(25, ['x', 'y'], known), true, 'a shorter document than before, all of it new');
  assert.equal(gapSuspected(25, ['x', 'c'], known), false, 'one known item: the window still reaches back');
  assert.equal(gapSuspected(0, ['x'], known), false, 'a first document has nothing to miss');
  assert.equal(gapSuspected(25, [], known), false, 'an empty document is not evidence');
  // The scheduler's own evidence asks for a full document: it misses this one.
  let state = observePoll(emptyState(), { at: 0, failed: false, notModified: false, items: Array.from({ length: 25 }, (_, i) => ({ guid: `old${i}`, date: null, isNew: true })) });
  state = observePoll(state, { at: 3_600_000, failed: false, notModified: false, items: [{ guid: 'x', date: null, isNew: true }, { guid: 'y', date: null, isNew: true }] });
  assert.equal(state.gapAt, null);
});

test('the document before: RFC 5005 prev-archive first, then a paged feed\'s next, then WordPress\'s ?paged=N', () => {
  assert.equal(documentBefore('https://a.example/feed', feed([], { prevArchive: 'https://a.example/2025.xml', nextPage: 'https://a.example/feed?page=2' }), 1), 'https://a.example/2025.xml');
  assert.equal(documentBefore('https://a.example/feed', feed([], { nextPage: 'https://a.example/feed?page=2' }), 1), 'https://a.example/feed?page=2');
  assert.equal(documentBefore('https://a.example/feed/?x=1', feed([], { generator: 'https://wordpress.org/?v=6.5' }), 3), 'https://a.example/feed/?x=1&paged=4');
  assert.equal(documentBefore('https://a.example/feed', feed([], { generator: 'Hugo' }), 1), null);
});

test('walking back stops at the first document holding a known item, at the archive\'s end, or on a loop', async () => {
  const pages = new Map<string, ParsedFeed>([
    ['p2', feed(['n4', 'n3'], { prevArchive: 'p3' })],
    ['p3', feed(['n2', 'k1'], { prevArchive: 'p4' })],
    ['p4', feed(['k0'])],
  ]);
  const asked: string[] = [];
  const fetchDocument = async (url: string) => {
    asked.push(url);
    return pages.get(url) ?? null;
  };
  const known = async (guids: string[]) => new Set(guids.filter((guid) => guid.startsWith('k')));
  const walk = await walkBack('p1', feed(['n6', 'n5'], { prevArchive: 'p2' }), fetchDocument, known);
  assert.deepEqual([walk.items.map((entry) => entry.guid), walk.pages, walk.complete, asked], [['n4', 'n3', 'n2'], 2, true, ['p2', 'p3']]);

  const ends = await walkBack('p1', feed(['n6'], { prevArchive: 'p2' }), async (url) => (url === 'p2' ? feed(['n5']) : null), known);
  assert.deepEqual([ends.items.length, ends.pages, ends.complete], [1, 1, false]);
  const loop = await walkBack('p1', feed(['n6'], { nextPage: 'p2' }), async () => feed(['n5'], { nextPage: 'p2' }), known);
  assert.deepEqual([loop.pages, loop.complete], [1, false], 'a document pointing to itself is read once');
  const capped = await walkBack('p1', feed(['n0'], { nextPage: 'q1' }), async (url) => feed([`m${url}`], { nextPage: `${url}x` }), known, 5);
  assert.equal(capped.pages, 5);
});

test('the gap record: nothing missing when the walk met a known item; else an upper estimate from the rate or the document\'s own pace', () => {
  const walk = { items: [item('r1')], pages: 1, complete: false };
  const minute = 60_000;
  const evidence = { since: 0, until: 60 * minute, documentItems: 10, documentDates: Array.from({ length: 10 }, (_, i) => 300 * minute + i * minute), newestKnown: 100 * minute, ratePerMs: null };
  // One item a minute (ten over nine minutes), the oldest 200 minutes after the newest known: 200 between, one recovered.
  assert.equal(gapRecord(evidence, walk).missing, 199);
  assert.equal(gapRecord({ ...evidence, documentDates: [], ratePerMs: 1 / minute }, walk).missing, 49, 'sixty an hour, ten shown, one recovered');
  assert.equal(gapRecord({ ...evidence, documentDates: [], ratePerMs: null }, walk).missing, null);
  assert.equal(gapRecord(evidence, { ...walk, complete: true }).missing, 0);
  assert.match(describeGap(gapRecord({ ...evidence, documentDates: [], ratePerMs: 1 / minute }, { items: [], pages: 0, complete: false })), /^up to 50 items may be missing between 1970-01-01 00:00:00Z and 1970-01-01 01:00:00Z \(the feed has no archive to recover them from\)$/);
  assert.match(describeGap(gapRecord(evidence, { ...walk, complete: true })), /^a gap between .*: 1 item recovered from the feed's archive, none missing$/);
});
