import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import type { CheckCounts } from '../store.js';

/**
 * Archive-wide totals: what the demo reports at its end (and what an overview page shows). Each
 * count is one aggregate query; nothing here is per article.
 */

const checkTotals = z.object({ total: count, firstCaptures: count, unchanged: count, changed: count, gone: count, unavailable: count, failed: count });
const methodCount = z.object({ method: text, n: count });
const articleVersionCount = z.object({ id: integer, url: text, versions: integer });
const exampleCapture = z.object({ title: nullableText, url: nullableText, finalUrl: text, bytes: count });
const activeWrapper = z.object({ feed: text, xpath: text, samples: integer });

export function checkCounts(db: Db): CheckCounts {
  const row = checkedRow(checkTotals, db.prepare(`SELECT COUNT(*) AS total,
      COALESCE(SUM(result = 'changed' AND version_n = 1), 0) AS firstCaptures,
      COALESCE(SUM(result = 'unchanged'), 0) AS unchanged,
      COALESCE(SUM(result = 'changed' AND version_n > 1), 0) AS changed,
      COALESCE(SUM(result = 'gone'), 0) AS gone,
      COALESCE(SUM(result = 'unavailable'), 0) AS unavailable,
      COALESCE(SUM(result = 'failed'), 0) AS failed FROM checks`).get(), 'checkCounts')!;
  const { total, ...counts } = row;
  return { ...counts, revisits: total - counts.firstCaptures };
}

/** Stored versions by how their object was extracted (`forest` wrapper, `sigfeed` single page). */
export function versionsByMethod(db: Db): Record<string, number> {
  const rows = checkedRows(methodCount, db.prepare('SELECT method, COUNT(*) AS n FROM versions GROUP BY method ORDER BY method').all(), 'versionsByMethod');
  return Object.fromEntries(rows.map((row) => [row.method, row.n]));
}

/** Each article's URL and version count (to compare with what a test web really changed). */
export function articleVersionCounts(db: Db): Array<{ id: number; url: string; versions: number }> {
  return checkedRows(articleVersionCount, db.prepare('SELECT id, url, versions FROM articles ORDER BY id').all(), 'articleVersionCounts');
}

export function countArticles(db: Db): number {
  return checkedRow(count, db.prepare('SELECT COUNT(*) FROM articles').pluck().get(), 'countArticles') ?? 0;
}

/** Bytes of stored (compressed) page bodies. */
export function storedBodyBytes(db: Db): number {
  return checkedRow(count, db.prepare('SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blobs').pluck().get(), 'storedBodyBytes') ?? 0;
}

/** One captured page per feed: its item's title, the URL it ended at, and its size. */
export function exampleCaptures(db: Db): Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }> {
  return checkedRows(exampleCapture, db.prepare(`SELECT items.title, items.link AS url, snapshots.final_url AS finalUrl, blobs.size AS bytes FROM snapshots
      JOIN items ON items.id = snapshots.item_id JOIN blobs ON blobs.sha256 = snapshots.sha256 GROUP BY items.feed_id ORDER BY snapshots.id`)
    .all(), 'exampleCaptures');
}

/** The wrapper each feed uses now. */
export function activeWrappers(db: Db): Array<{ feed: string; xpath: string; samples: number }> {
  return checkedRows(activeWrapper, db.prepare(`SELECT COALESCE(feeds.title, feeds.url) AS feed, wrappers.xpath, wrappers.samples FROM wrappers JOIN feeds ON feeds.id = wrappers.feed_id
      WHERE wrappers.active = 1 ORDER BY feeds.id`).all(), 'activeWrappers');
}
