import assert from 'node:assert/strict';
import { syncSubscriptions } from '../../src/archive/rules/feeds.js';
import { runOn } from '../../src/archive/sqlite/sql.js';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { WARCParser } from 'warcio';
import { applyDecision, articleById, createArticle, recordRevisit } from '../../src/archive/rules/articles.js';
import { addTemplate, confirmWrapper, retireWrapper, storeWrapper, templateChoicesOf } from '../../src/archive/rules/extractions.js';
import { backlog, dueCaptures, duePolls, dueRevisits } from '../../src/archive/sqlite/queues.js';
import { captureReferenceOf, getBlob, putEncodedBlob } from '../../src/archive/rules/captures.js';
import { encodeBody, loadCodec } from '../../src/archive/codec.js';
import { checkArchive } from '../../src/archive/sqlite/integrity.js';
import { exportWarc, SAME_OBJECT_PROFILE } from '../../src/archive/exports/export.js';
import { SqliteStore } from '../../src/archive/sqlite/store.js';
import { migrate, openDatabase } from '../../src/archive/sqlite/database.js';
import { readMigrations } from '../../src/archive/migrations.js';
import { feedById } from '../../src/archive/sqlite/feeds.js';
import { recordPoll } from '../../src/archive/sqlite/polls.js';
import { upsertItems } from '../../src/archive/rules/items.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { packContent } from '../../src/archive/packed-content.js';
import { EXTRACTOR_VERSION } from '../../src/extract/extract.js';
import { dropCaptureBody, latestPayloadDigest, recordCapture } from '../../src/archive/rules/captures.js';
import type { FeedInfo, FeedItem } from '../../src/feeds/model.js';
import type { FetchResult } from '../../src/net/fetcher.js';
import { tempDir } from '../helpers/temp.js';

const item = (guid: string, extra: Partial<FeedItem> = {}): FeedItem => ({
  guid, title: `Title ${guid}`, link: `https://x.example/${guid}`, origLink: null, published: '2026-11-01T00:00:00.000Z', updated: null,
  author: null, summary: 'summary', content: null, categories: [], enclosures: [], ...extra,
});

before(() => loadCodec());

test('migrations are applied once, in order, and recorded', () => {
  const db = openDatabase(':memory:');
  const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
  assert.deepEqual(versions, readMigrations().map((m) => m.version));
  assert.deepEqual(migrate(db), [], 'nothing left to apply');
  db.close();
});

test('a failing migration is rolled back whole', () => {
  const db = openDatabase(':memory:');
  assert.throws(() => migrate(db, [{ version: 999, name: 'broken', sql: 'CREATE TABLE half (x); SELECT * FROM no_such_table;' }]));
  assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'").pluck().get(), 0);
  assert.equal(db.prepare('SELECT COUNT(*) FROM schema_migrations WHERE version = 999').pluck().get(), 0);
  db.close();
});

test('syncing the list adds, updates and unsubscribes feeds (keeping their rows)', () => {
  const db = openDatabase(':memory:');
  let report = runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }, { url: 'https://b.example/', tags: ['x'], enabled: true }]));
  assert.deepEqual(report, { added: ['https://a.example/', 'https://b.example/'], updated: [], removed: [] });
  assert.equal(duePolls(db, new Date(), 10).length, 2, 'new feeds are due at once');
  report = runOn(db, syncSubscriptions([{ url: 'https://a.example/', title: 'A', tags: [], enabled: true }]));
  assert.deepEqual(report, { added: [], updated: ['https://a.example/'], removed: ['https://b.example/'] });
  assert.equal(db.prepare('SELECT COUNT(*) FROM feeds').pluck().get(), 2);
  assert.deepEqual(runOn(db, syncSubscriptions([{ url: 'https://a.example/', title: 'A', tags: [], enabled: true }])), { added: [], updated: [], removed: [] });
  db.close();
});

test('due polls: an overdue feed whose items are at risk goes before feeds never polled, one overdue for delay\'s sake after them', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions(Array.from({ length: 30 }, (_, i) => ({ url: `https://f${i}.example/`, tags: [], enabled: true }))));
  const now = new Date('2026-11-02T00:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  // Feed 30's poll is 40 s overdue and past its risk time; feed 28's is 60 s overdue, at risk only
  // in an hour; feed 29's is not due yet.
  db.prepare('UPDATE feeds SET next_poll_at = ?, poll_risk_at = ? WHERE id = 30').run(ago(40_000), ago(40_000));
  db.prepare('UPDATE feeds SET next_poll_at = ?, poll_risk_at = ? WHERE id = 28').run(ago(60_000), ago(-3_600_000));
  db.prepare('UPDATE feeds SET next_poll_at = ? WHERE id = 29').run(ago(-40_000));
  const due = duePolls(db, now, 8);
  assert.deepEqual(due.map((ref) => ref.id), [30, 1, 2, 3, 4, 5, 6, 7], 'the poll at risk first, then never-polled feeds in the order they came');
  assert.equal(due[0]!.dueAt, now.getTime() - 40_000);
  const all = duePolls(db, now, 64);
  assert.equal(all.length, 29, 'every due feed, none not yet due');
  assert.equal(all.at(-1)!.id, 28, 'a poll overdue for delay\'s sake after the feeds never polled');
  db.close();
});

test('items: new ones are inserted pending capture; changed title, summary or updated date mark them changed', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }]));
  const now = new Date('2026-11-02T00:00:00Z');
  assert.deepEqual(runOn(db, upsertItems(1, [item('1'), item('2'), item('1')], now, true)), { newItems: 2, changedItems: 0, changedIds: [] });
  assert.deepEqual(runOn(db, upsertItems(1, [item('1'), item('2')], now, true)), { newItems: 0, changedItems: 0, changedIds: [] });
  const later = new Date('2026-11-03T00:00:00Z');
  assert.deepEqual(runOn(db, upsertItems(1, [item('1', { title: 'New title' }), item('2', { updated: '2026-11-03T00:00:00.000Z' }), item('3')], later, true)), { newItems: 1, changedItems: 2, changedIds: [1, 2] });
  const rows = db.prepare('SELECT guid, change_count, first_seen, last_seen, page_state FROM items ORDER BY guid').all() as Array<{ guid: string; change_count: number; first_seen: string; last_seen: string; page_state: string }>;
  assert.deepEqual(rows.map((r) => [r.guid, r.change_count, r.page_state]), [['1', 1, 'pending'], ['2', 1, 'pending'], ['3', 0, 'pending']]);
  assert.equal(rows[0]!.first_seen, now.toISOString());
  assert.equal(rows[0]!.last_seen, later.toISOString());
  assert.equal(runOn(db, upsertItems(1, [item('4', { link: null })], later, true)).newItems, 1);
  assert.equal(db.prepare("SELECT page_state FROM items WHERE guid = '4'").pluck().get(), 'skipped', 'no link, no page');
  db.close();
});

test('first captures go newest item first by when the item appeared, not by when a poll saw it', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://busy.example/', tags: [], enabled: true }, { url: 'https://old.example/', tags: [], enabled: true }]));
  // One round of first polls: the busy feed's item of a minute ago is seen first, the other
  // feed's day-old backlog item ten seconds later; an item dated in the future is seen last.
  const t = Date.parse('2026-11-02T12:00:00Z');
  runOn(db, upsertItems(1, [item('new', { published: new Date(t - 60_000).toISOString() })], new Date(t), true));
  runOn(db, upsertItems(2, [item('old', { published: new Date(t - 86_400_000).toISOString() })], new Date(t + 10_000), true));
  runOn(db, upsertItems(2, [item('future', { published: '2027-01-01T00:00:00.000Z' }), item('undated', { published: null })], new Date(t + 5_000), true));
  const order = dueCaptures(db, new Date(t + 20_000), 10).map((ref) => db.prepare('SELECT guid FROM items WHERE id = ?').pluck().get(ref.id));
  // The future date is not believed (it appeared when first seen, t + 5 s), nor is an undated item
  // older than its sight; the two appeared together, and go in their document's order (issue #52).
  assert.deepEqual(order, ['future', 'undated', 'new', 'old']);
  db.close();
});

test('blobs are stored once per sha256 and read back', () => {
  const db = openDatabase(':memory:');
  const body = Buffer.from('<html>'.repeat(1000));
  const first = runOn(db, putEncodedBlob(encodeBody(body)));
  const second = runOn(db, putEncodedBlob(encodeBody(Buffer.from(body))));
  assert.equal(first, second);
  assert.equal(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get(), 1);
  assert.ok((db.prepare('SELECT LENGTH(data) FROM blobs').pluck().get() as number) < body.length / 10, 'compressed');
  assert.deepEqual(runOn(db, getBlob(first)), body);
  db.close();
});

test('a poll that finds a feed item changed makes its article due for a revisit at once', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }]));
  const now = new Date('2026-11-02T00:00:00Z');
  runOn(db, upsertItems(1, [item('1'), item('2')], now, true));
  const fetched: FetchResult = {
    url: 'https://x.example/1', finalUrl: 'https://x.example/1', status: 200, headers: {}, contentType: 'text/html', body: Buffer.from('<p>page</p>'),
    redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: now, durationMs: 5,
  };
  const object = normalizeArticle({ title: 'T', byline: null, published: null, html: '<p>page</p>' });
  for (const itemId of [1, 2]) {
    const snapshotId = runOn(db, recordCapture(itemId, fetched, encodeBody(fetched.body)));
    runOn(db, createArticle({ itemId, feedId: 1, url: fetched.url, finalUrl: fetched.finalUrl, canonicalUrl: null },
      { snapshotId, capturedAt: now.toISOString(), method: 'sigfeed', wrapperId: null, title: 'T', byline: null, published: null, text: 'page', html: '<p>page</p>', object, hash: objectHash(object), extractor: EXTRACTOR_VERSION, source: null, packed: packContent('<p>page</p>', object) },
      { at: now.toISOString(), status: 200, snapshotId }, { step: 1, at: '2026-11-02T01:00:00.000Z' }));
  }
  const later = new Date('2026-11-02T00:30:00Z');
  const feed: FeedInfo = { title: 'A', link: null, description: null, language: null, updated: null, ttl: null, skipHours: [], skipDays: [], updatePeriod: null, updateFrequency: null, image: null, hub: null, self: null, prevArchive: null, nextPage: null, generator: null };
  const report = recordPoll(db, feedById(db, 1)!, {
    startedAt: later, durationMs: 5, result: 'ok', fetch: null, error: null, capturePages: true, revisitChangedItemsAt: later,
    parsed: { format: 'rss2.0', warnings: [], feed, items: [item('1', { title: 'Corrected title' }), item('2')] },
    schedule: { nextPollAt: later, reason: 'test', state: '{}', ratePerHour: null, window: null, maxAgeSeconds: null, riskAt: null },
  });
  assert.deepEqual(report.changedIds, [1]);
  const due = dueRevisits(db, later, 10);
  assert.deepEqual(due.map((ref) => runOn(db, articleById(ref.id))!.item_id), [1], 'only the changed item, half an hour before its scheduled check');
  db.close();
});

/** A feed with one item whose page `html` was captured at `now` and made version 1 of article 1. */
function archivedPage(html: string, now: Date, headers: Record<string, string> = { 'content-type': 'text/html' }) {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }]));
  runOn(db, upsertItems(1, [item('1')], now, true));
  const fetched = (at: Date, body = Buffer.from(html)): FetchResult => ({
    url: 'https://x.example/1', finalUrl: 'https://x.example/1', status: 200, headers, contentType: 'text/html', body,
    redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: at, durationMs: 5,
  });
  const text = html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  const object = normalizeArticle({ title: 'T', byline: null, published: null, html });
  const first = runOn(db, recordCapture(1, fetched(now), encodeBody(Buffer.from(html))));
  runOn(db, createArticle({ itemId: 1, feedId: 1, url: 'https://x.example/1', finalUrl: 'https://x.example/1', canonicalUrl: null },
    { snapshotId: first, capturedAt: now.toISOString(), method: 'sigfeed', wrapperId: null, title: 'T', byline: null, published: null, text, html, object, hash: objectHash(object), extractor: EXTRACTOR_VERSION, source: null, packed: packContent(html, object) },
    { at: now.toISOString(), status: 200, snapshotId: first }, { step: 1, at: null }));
  return { db, fetched };
}

test('WARC export: a repeated payload is a revisit record that refers to the first response', async () => {
  const now = new Date('2026-11-02T00:00:00Z');
  const html = '<html><body><p>The same page twice.</p></body></html>';
  const { db, fetched } = archivedPage(html, now, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': '40' });
  const body = Buffer.from(html);
  runOn(db, recordRevisit(1, fetched(new Date('2026-11-02T01:00:00Z')), { kind: 'extract', body: encodeBody(body) }));

  const out = join(tempDir(), 'out.warc');
  const report = await exportWarc(new SqliteStore(db, ':memory:'), {}, out, { gzip: false, software: 'test' });
  assert.deepEqual(report.records, { warcinfo: 1, request: 2, response: 1, revisit: 1, metadata: 2 });
  const records: Array<{ type: string; id: string | null | undefined; refersTo: string | null | undefined; profile: string | null | undefined; digest: string | null | undefined; payload: string }> = [];
  for await (const record of WARCParser.iterRecords(createReadStream(out))) {
    records.push({ type: record.warcType, id: record.warcHeader('WARC-Record-ID'), refersTo: record.warcHeader('WARC-Refers-To'), profile: record.warcHeader('WARC-Profile'),
      digest: record.warcPayloadDigest,
      payload: record.warcType === 'response' ? await record.contentText() : '' });
  }
  const response = records.find((r) => r.type === 'response')!;
  const revisit = records.find((r) => r.type === 'revisit')!;
  assert.equal(revisit.refersTo, response.id);
  assert.match(revisit.profile ?? '', /identical-payload-digest/);
  assert.ok(response.digest, 'the response carries its payload digest');
  assert.equal(revisit.digest, response.digest);
  assert.equal(response.payload, body.toString(), 'the stored body, decompressed, with headers that say so');
  db.close();
});

test('a byte-identical revisit stores no body and queues no extraction; it exports as a revisit record', async () => {
  const now = new Date('2026-11-02T00:00:00Z');
  const html = '<html><body><p>Exactly the same bytes.</p></body></html>';
  const { db, fetched } = archivedPage(html, now, { 'content-type': 'text/html', etag: '"v1"' });
  const body = Buffer.from(html);
  const encoded = encodeBody(body);
  db.prepare('DELETE FROM extraction_queue').run();
  assert.equal(runOn(db, latestPayloadDigest(1)), encoded.sha256);
  const blobBytes = () => db.prepare('SELECT COUNT(*) AS n, SUM(length(data)) AS bytes FROM blobs').get();
  const before = blobBytes();

  const later = new Date('2026-11-02T01:00:00Z');
  runOn(db, recordRevisit(1, fetched(later), { kind: 'identical', body: encodeBody(body), next: { step: 2, at: '2026-11-02T07:00:00.000Z' } }));
  assert.deepEqual(blobBytes(), before, 'no new body stored');
  assert.equal(backlog(db, later).queuedExtractions, 0, 'nothing to extract');
  const check = db.prepare('SELECT result, reason, snapshot_id FROM checks ORDER BY id DESC LIMIT 1').get() as { result: string; reason: string; snapshot_id: number };
  assert.deepEqual([check.result, check.reason], ['unchanged', 'identical payload']);
  const snapshot = db.prepare('SELECT sha256, headers FROM snapshots WHERE id = ?').get(check.snapshot_id) as { sha256: string; headers: string };
  assert.equal(snapshot.sha256, encoded.sha256, 'the check keeps the payload digest');
  assert.equal((JSON.parse(snapshot.headers) as Record<string, string>)['etag'], '"v1"', 'and the headers');
  assert.equal(runOn(db, articleById(1))!.next_check_at, '2026-11-02T07:00:00.000Z');

  const out = join(tempDir(), 'identical.warc');
  const report = await exportWarc(new SqliteStore(db, ':memory:'), {}, out, { gzip: false, software: 'test' });
  assert.equal(report.records['response'], 1);
  assert.equal(report.records['revisit'], 1);
  db.close();
});

test('a revisit whose object did not change keeps its digest and headers, not its body; it exports as a same-object revisit record', async () => {
  const now = new Date('2026-11-02T00:00:00Z');
  const page = (ad: string) => `<html><body><p>The article.</p><aside>${ad}</aside></body></html>`;
  const { db, fetched } = archivedPage(page('ad one'), now);
  const revisitPage = fetched(new Date('2026-11-02T01:00:00Z'), Buffer.from(page('ad two')));
  const revisitBody = encodeBody(revisitPage.body);
  const revisit = runOn(db, recordRevisit(1, revisitPage, { kind: 'extract', body: revisitBody }));
  assert.equal(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get(), 2);
  runOn(db, dropCaptureBody(revisit));
  assert.equal(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get(), 1, 'the revisit body is gone');
  assert.equal(runOn(db, latestPayloadDigest(1)), revisitBody.sha256, 'its digest stays');
  runOn(db, dropCaptureBody(revisit));

  const out = join(tempDir(), 'same-object.warc');
  await exportWarc(new SqliteStore(db, ':memory:'), {}, out, { gzip: false, software: 'test' });
  const records: Array<{ type: string; id: string | null | undefined; refersTo: string | null | undefined; profile: string | null | undefined; digest: string | null | undefined }> = [];
  for await (const record of WARCParser.iterRecords(createReadStream(out))) {
    records.push({ type: record.warcType, id: record.warcHeader('WARC-Record-ID'), refersTo: record.warcHeader('WARC-Refers-To'), profile: record.warcHeader('WARC-Profile'), digest: record.warcHeader('WARC-Payload-Digest') });
  }
  const response = records.find((r) => r.type === 'response')!;
  const same = records.find((r) => r.type === 'revisit')!;
  assert.equal(same.profile, SAME_OBJECT_PROFILE);
  assert.equal(same.refersTo, response.id);
  assert.equal(same.digest, `sha256:${revisitBody.sha256}`);
  db.close();
});

test('a check that found the comparison key\'s object sets the key\'s source only while the key still holds that object', () => {
  const now = new Date('2026-11-02T00:00:00Z');
  const { db } = archivedPage('<html><body><p>The article.</p></body></html>', now);
  const key = () => ({ hash: String(db.prepare('SELECT compare_hash FROM articles WHERE id = 1').pluck().get()), source: db.prepare('SELECT compare_source FROM articles WHERE id = 1').pluck().get() });
  const check = (hash: string, source: string) => runOn(db, applyDecision(runOn(db, articleById(1)), {
    kind: 'check', result: 'unchanged', page: { at: now.toISOString(), status: 200, snapshotId: null }, next: { step: 2, at: null }, reason: null, sameObject: { hash, source },
  }));
  check('another-object', 'a'.repeat(64));
  assert.equal(key().source, null, 'the key changed since the extraction was compared with it: nothing learned');
  check(key().hash, 'b'.repeat(64));
  assert.equal(key().source, 'b'.repeat(64));
  db.close();
});

test('a site\'s captures are stored against its first capture stored alone; a reference outlives its own capture\'s body', () => {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }]));
  const now = new Date('2026-11-02T00:00:00Z');
  runOn(db, upsertItems(1, [item('1'), item('2')], now, true));
  const chrome = (words: string) => Buffer.from(`<html><head>${'<script src="/app.js"></script><link rel="stylesheet" href="/site.css">'.repeat(40)}</head>
    <body><nav>${Array.from({ length: 80 }, (_, i) => `<a href="/s/${i}">Section ${i}</a>`).join(' ')}</nav><article>${words}</article></body></html>`);
  const page = (n: number, bytes: Buffer): FetchResult => ({
    url: `https://a.example/${n}`, finalUrl: `https://a.example/${n}`, status: 200, headers: {}, contentType: 'text/html', body: bytes,
    redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: now, durationMs: 5,
  });
  const firstBytes = chrome('the first story, about the council');
  const first = runOn(db, recordCapture(1, page(1, firstBytes), encodeBody(firstBytes, runOn(db, captureReferenceOf('https://a.example/')))));
  const reference = runOn(db, captureReferenceOf('https://a.example/'));
  assert.ok(reference, 'the first capture, stored alone, is the site\'s reference');
  const secondBytes = chrome('the second story, about the bridge');
  const encoded = encodeBody(secondBytes, reference);
  assert.equal(encoded.encoding, 'zstd-dict');
  runOn(db, recordCapture(2, page(2, secondBytes), encoded));
  assert.equal(runOn(db, captureReferenceOf('https://a.example/'))!.sha256, reference.sha256, 'a capture stored against the reference does not replace it');
  assert.deepEqual(runOn(db, getBlob(encoded.sha256)), secondBytes);
  // The reference's own capture drops its body (say its article turned out unchanged): the body stays.
  runOn(db, dropCaptureBody(first));
  assert.deepEqual(runOn(db, getBlob(reference.sha256)), firstBytes);
  assert.deepEqual(runOn(db, getBlob(encoded.sha256)), secondBytes);
  assert.ok(checkArchive(db).every((check) => check.problems.length === 0), JSON.stringify(checkArchive(db)));
  db.close();
});

/** An archive of one feed whose one template has a wrapper, learned at 3 pages. */
function archiveWithWrapper() {
  const db = openDatabase(':memory:');
  runOn(db, syncSubscriptions([{ url: 'https://a.example/', tags: [], enabled: true }]));
  const template = runOn(db, addTemplate(1, ['div']));
  const wrapper = { type: 'div', tag: 'div', attributes: {}, dfs: [3], level: 2, xpath: '//div', relevance: 1, samples: 3, templateBlocks: [] };
  return { db, template, wrapper, id: runOn(db, storeWrapper(1, template, wrapper, '3 pages')) };
}

test('a wrapper confirmed again and again says when it was last confirmed, not every time', () => {
  const { db, id } = archiveWithWrapper();
  for (const pages of [5, 10, 20, 40]) runOn(db, confirmWrapper(id, 10, `${pages} pages`));
  assert.equal(db.prepare('SELECT reason FROM wrappers WHERE id = ?').pluck().get(id), '3 pages; re-learned unchanged at 40 pages');
  db.close();
});

test('a retired wrapper is no template\'s choice any more, and says why; a new one learned later is', () => {
  const { db, template, wrapper, id } = archiveWithWrapper();
  assert.equal(runOn(db, templateChoicesOf(1))[0]!.wrapperId, id);
  runOn(db, retireWrapper(id, 'set aside by the guard at page 40; 2 re-learnings found none to replace it'));
  assert.equal(runOn(db, templateChoicesOf(1))[0]!.wrapperId, null, 'the template extracts from the single page');
  assert.equal(db.prepare('SELECT reason FROM wrappers WHERE id = ?').pluck().get(id), '3 pages; retired: set aside by the guard at page 40; 2 re-learnings found none to replace it');
  runOn(db, retireWrapper(id, 'again'));
  assert.match(String(db.prepare('SELECT reason FROM wrappers WHERE id = ?').pluck().get(id)), /retired: set aside[^;]*; 2 re-learnings found none to replace it$/, 'retired once');
  const next = runOn(db, storeWrapper(1, template, { ...wrapper, xpath: '//article' }, '80 pages'));
  assert.equal(runOn(db, templateChoicesOf(1))[0]!.wrapperId, next);
  db.close();
});
