import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { createArticle } from '../../src/archive/articles.js';
import { encodeBody, loadCodec } from '../../src/archive/codec.js';
import { syncSubscriptions } from '../../src/archive/feeds.js';
import { upsertItems } from '../../src/archive/items.js';
import { normalizeArticle, objectHash } from '../../src/archive/normalize.js';
import { recordCapture } from '../../src/archive/snapshots.js';
import { openStore, SqliteStore } from '../../src/archive/sqlite-store.js';
import { PROJECT_ROOT } from '../../src/util/project-root.js';
import { tempDir } from '../helpers/temp.js';

before(() => loadCodec());

/** An archive with one feed, one item and version 1 of its article. */
function archive(): SqliteStore {
  const store = openStore(':memory:');
  const { db } = store;
  syncSubscriptions(db, [{ url: 'https://a.example/feed', title: 'A', tags: ['news'], enabled: true }]);
  const now = new Date('2026-11-02T00:00:00Z');
  upsertItems(db, 1, [{ guid: 'g1', link: 'https://a.example/1', title: 'One', summary: null, published: null, updated: null, author: null, categories: [], enclosures: [], content: null, origLink: null }], now, true);
  const html = '<p>First paragraph of the story.</p>';
  const body = Buffer.from(`<html><body>${html}</body></html>`);
  const snapshotId = recordCapture(db, 1, {
    url: 'https://a.example/1', finalUrl: 'https://a.example/1', status: 200, headers: {}, contentType: 'text/html',
    redirects: [], permanentUrl: null, notModified: false, retryAfterMs: null, fetchedAt: now, durationMs: 5,
  }, encodeBody(body));
  const object = normalizeArticle({ title: 'One', byline: 'Ann Lee', published: null, html });
  createArticle(db, { itemId: 1, feedId: 1, url: 'https://a.example/1', finalUrl: 'https://a.example/1', canonicalUrl: null },
    { snapshotId, capturedAt: now.toISOString(), method: 'sigfeed', wrapperId: null, title: 'One', byline: 'Ann Lee', published: null, text: 'First paragraph of the story.', html, object, hash: objectHash(object) },
    { at: now.toISOString(), status: 200, snapshotId }, { step: 1, at: '2026-11-02T01:00:00.000Z' });
  return store;
}

test('the store answers with domain types: camelCase fields, parsed JSON, booleans', async () => {
  const store = archive();
  const [feed] = await store.feeds();
  assert.deepEqual(feed, { id: 1, subscribedUrl: 'https://a.example/feed', url: 'https://a.example/feed', title: 'A', feedTitle: null, siteUrl: null, tags: ['news'], schedule: null, enabled: true, format: null });
  const article = await store.article(1);
  assert.equal(article?.nextCheck, '2026-11-02T01:00:00.000Z');
  assert.equal(article?.goneSince, null);
  const [version] = await store.versions(1);
  assert.equal(version?.capturedAt, '2026-11-02T00:00:00.000Z');
  assert.deepEqual(version?.change, []);
  assert.equal(version?.diff, null);
  assert.equal(version?.object.byline, 'Ann Lee');
  assert.deepEqual(version?.object.blocks.map((block) => block.text), ['First paragraph of the story.']);
  assert.deepEqual(await store.checks(1), [{ at: '2026-11-02T00:00:00.000Z', status: 200, result: 'changed', version: 1, reason: 'first capture' }]);
  assert.equal(await store.article(2), null);
  assert.equal(await store.version(1, 2), null);
  await store.close();
});

test('a row whose JSON is damaged is an error that names the row, not a wrong value', async () => {
  const store = archive();
  store.db.prepare(`UPDATE versions SET change = '["title", "moved"]' WHERE article_id = 1 AND n = 1`).run();
  await assert.rejects(store.version(1, 1), /version 1 of article 1 \(change\) does not hold what it should/);
  store.db.prepare(`UPDATE versions SET change = '[' WHERE article_id = 1 AND n = 1`).run();
  await assert.rejects(store.versions(1), /version 1 of article 1 \(change\) holds invalid JSON/);
  await store.close();
});

test('a command that reads refuses a missing archive instead of creating an empty one', () => {
  const path = join(tempDir(), 'none.db');
  assert.throws(() => openStore(path), /no archive at .*none\.db: `forest run` creates it/);
  openStore(path, { create: true }).db.close();
});

test('the CLI reaches storage only through the store: no SQL and no database handle in src/cli', () => {
  const dir = join(PROJECT_ROOT, 'src', 'cli');
  const offending = readdirSync(dir).filter((name) => name.endsWith('.ts')).flatMap((name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    const found = [
      /\.prepare\(|\bSELECT\b|\bINSERT INTO\b|\bUPDATE \w+ SET\b/.test(text) ? 'SQL' : null,
      /archive\/database\.js|better-sqlite3/.test(text) ? 'a database handle' : null,
    ].filter(Boolean);
    return found.length ? [`${name}: ${found.join(', ')}`] : [];
  });
  assert.deepEqual(offending, []);
});
