import type { Db } from '../../src/archive/sqlite/database.js';

/**
 * A synthetic archive of a given size, written with SQL alone (seconds for a million rows): feeds
 * on many hosts, items with their captured pages and extractions, articles with versions and
 * checks, and a little of every queue (due polls, pending captures, due revisits, queued
 * extractions) so that a scheduler pass has work to find. Shared by the query-plan test and
 * `bench:scale`.
 */
export interface ArchiveSize {
  feeds: number;
  /** Items per feed. */
  itemsPerFeed: number;
  /** Snapshots (captures and revisits) per item. */
  snapshotsPerItem: number;
}

export function fillArchive(db: Db, size: ArchiveSize, now = new Date('2026-11-22T12:00:00Z')): { snapshots: number } {
  const stamp = now.toISOString();
  const items = size.feeds * size.itemsPerFeed;
  const snapshots = items * size.snapshotsPerItem;
  const step = `${Math.trunc(size.snapshotsPerItem)}`;
  db.transaction(() => {
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO feeds (id, subscribed_url, url, enabled, subscribed, next_poll_at, created_at, updated_at)
      SELECT i, 'http://127.0.' || (i % 250) || '.' || (1 + i % 200) || '/feed-' || i || '.xml', 'http://127.0.' || (i % 250) || '.' || (1 + i % 200) || '/feed-' || i || '.xml',
        1, 1, strftime('%Y-%m-%dT%H:%M:%fZ', ?, '+' || (i % 600) || ' seconds', '-300 seconds'), ?, ? FROM n`).run(size.feeds, stamp, stamp, stamp);
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO items (id, feed_id, guid, link, title, summary, first_seen, last_seen, page_state, page_attempts, page_due_at)
      SELECT i, 1 + (i - 1) / ${Math.trunc(size.itemsPerFeed)}, 'guid-' || i, 'http://127.1.' || (i % 250) || '.' || (1 + i % 200) || '/a/' || i, 'Title ' || i, 'Summary ' || i,
        strftime('%Y-%m-%dT%H:%M:%fZ', ?, '-' || (? - i) || ' seconds'), ?,
        CASE WHEN i % 1000 = 0 THEN 'pending' ELSE 'captured' END, CASE WHEN i % 1000 = 0 THEN 0 ELSE 1 END,
        CASE WHEN i % 1000 = 0 THEN strftime('%Y-%m-%dT%H:%M:%fZ', ?, '-' || (? - i) || ' seconds') END FROM n`).run(items, stamp, items, stamp, stamp, items);
    db.prepare(`INSERT INTO blobs (sha256, size, encoding, data) VALUES ('0000', 1, 'identity', x'41')`).run();
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO snapshots (id, item_id, url, final_url, fetched_at, duration_ms, status, headers, content_type, sha256)
      SELECT i, 1 + (i - 1) / ${step}, 'http://x/' || i, 'http://x/' || i, ?, 10, 200, '{}', 'text/html', '0000' FROM n`).run(snapshots, stamp);
    db.prepare(`INSERT INTO templates (id, feed_id, signature, created_at, pages) SELECT id, id, '[]', ?, 0 FROM feeds`).run(stamp);
    db.prepare(`INSERT INTO contents (hash, title, text, html, blocks)
      SELECT 'h' || id, 'T', 'text', '<p>text</p>', '{"title":"T","byline":null,"published":null,"blocks":[],"media":[]}' FROM items WHERE page_state = 'captured'`).run();
    db.prepare(`INSERT INTO extractions (snapshot_id, item_id, template_id, method, text, html, extracted_at, content_hash)
      SELECT snapshots.id, snapshots.item_id, items.feed_id, 'sigfeed', '', '', ?, CASE WHEN items.page_state = 'captured' THEN 'h' || items.id END FROM snapshots JOIN items ON items.id = snapshots.item_id WHERE snapshots.id % 997 <> 0`).run(stamp);
    db.prepare(`INSERT INTO extraction_queue (snapshot_id, queued_at) SELECT id, ? FROM snapshots WHERE id % 997 = 0`).run(stamp);
    db.prepare(`INSERT INTO articles (id, item_id, feed_id, url, versions, first_captured, revisit_step, next_check_at, compare_hash, compare_method, compare_snapshot_id)
      SELECT items.id, items.id, items.feed_id, items.link, 1, ?, 1, CASE WHEN items.id % 50 = 0 THEN strftime('%Y-%m-%dT%H:%M:%fZ', ?, '-' || (items.id % 3000) || ' seconds') WHEN items.id % 3 = 0 THEN NULL
        ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ?, '+' || (items.id % 86400) || ' seconds') END, 'h' || items.id, 'sigfeed', (items.id - 1) * ${step} + 1
      FROM items WHERE items.page_state = 'captured'`).run(stamp, stamp, stamp);
    db.prepare(`INSERT INTO versions (article_id, n, snapshot_id, captured_at, method, hash) SELECT id, 1, compare_snapshot_id, ?, 'sigfeed', compare_hash FROM articles`).run(stamp);
    db.prepare(`INSERT INTO checks (article_id, at, status, result, snapshot_id, version_n)
      SELECT articles.id, ?, 200, 'unchanged', snapshots.id, 1 FROM articles JOIN snapshots ON snapshots.item_id = articles.item_id`).run(stamp);
  })();
  db.pragma('optimize');
  db.exec('ANALYZE');
  return { snapshots };
}
