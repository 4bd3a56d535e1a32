import type { Db } from './database.js';

/**
 * Archive-wide totals: what the demo reports at its end (and what an overview page shows). Each
 * count is one aggregate query; nothing here is per article.
 */

export interface CheckCounts {
  /** Each article's first capture (it made version 1). */
  firstCaptures: number;
  /** Every later check: unchanged, changed (it made a new version), gone (404/410), unavailable or failed. */
  revisits: number;
  unchanged: number;
  changed: number;
  gone: number;
  unavailable: number;
  failed: number;
}

export function checkCounts(db: Db): CheckCounts {
  const row = db.prepare(`SELECT COUNT(*) AS total,
      COALESCE(SUM(result = 'changed' AND version_n = 1), 0) AS firstCaptures,
      COALESCE(SUM(result = 'unchanged'), 0) AS unchanged,
      COALESCE(SUM(result = 'changed' AND version_n > 1), 0) AS changed,
      COALESCE(SUM(result = 'gone'), 0) AS gone,
      COALESCE(SUM(result = 'unavailable'), 0) AS unavailable,
      COALESCE(SUM(result = 'failed'), 0) AS failed FROM checks`).get() as Omit<CheckCounts, 'revisits'> & { total: number };
  const { total, ...counts } = row;
  return { ...counts, revisits: total - counts.firstCaptures };
}

/** Stored versions by how their object was extracted (`forest` wrapper, `sigfeed` single page). */
export function versionsByMethod(db: Db): Record<string, number> {
  const rows = db.prepare('SELECT method, COUNT(*) AS n FROM versions GROUP BY method ORDER BY method').all() as Array<{ method: string; n: number }>;
  return Object.fromEntries(rows.map((row) => [row.method, row.n]));
}

/** Each article's URL and version count (to compare with what a test web really changed). */
export function articleVersionCounts(db: Db): Array<{ id: number; url: string; versions: number }> {
  return db.prepare('SELECT id, url, versions FROM articles ORDER BY id').all() as Array<{ id: number; url: string; versions: number }>;
}

export function countArticles(db: Db): number {
  return db.prepare('SELECT COUNT(*) FROM articles').pluck().get() as number;
}

/** Bytes of stored (compressed) page bodies. */
export function storedBodyBytes(db: Db): number {
  return db.prepare('SELECT COALESCE(SUM(LENGTH(data)), 0) FROM blobs').pluck().get() as number;
}

/** One captured page per feed: its item's title, the URL it ended at, and its size. */
export function exampleCaptures(db: Db): Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }> {
  return db.prepare(`SELECT items.title, items.link AS url, snapshots.final_url AS finalUrl, blobs.size AS bytes FROM snapshots
      JOIN items ON items.id = snapshots.item_id JOIN blobs ON blobs.sha256 = snapshots.sha256 GROUP BY items.feed_id ORDER BY snapshots.id`)
    .all() as Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }>;
}

/** The wrapper each feed uses now. */
export function activeWrappers(db: Db): Array<{ feed: string; xpath: string; samples: number }> {
  return db.prepare(`SELECT COALESCE(feeds.title, feeds.url) AS feed, wrappers.xpath, wrappers.samples FROM wrappers JOIN feeds ON feeds.id = wrappers.feed_id
      WHERE wrappers.active = 1 ORDER BY feeds.id`).all() as Array<{ feed: string; xpath: string; samples: number }>;
}
