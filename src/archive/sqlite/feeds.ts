import { DUE } from '../due.js';
import { feedRow, type FeedRow } from '../rules/feeds.js';
import type { Db } from './database.js';
import { feedCountsOf, type FeedCounts } from '../feed-counts.js';
import { checkedRow, checkedRows, count, text } from '../rows.js';

export function listFeeds(db: Db, options: { includeUnsubscribed?: boolean } = {}): FeedRow[] {
  const where = options.includeUnsubscribed ? '' : 'WHERE subscribed = 1';
  return checkedRows(feedRow, db.prepare(`SELECT * FROM feeds ${where} ORDER BY id`).all(), 'listFeeds');
}

/** Store.pollNow: the chosen enabled feeds due at `now`, in one statement; their subscribed URLs. */
export function pollFeedsNow(db: Db, feeds: { urls: string[] } | { lastErrorStartsWith: string }, now: Date): string[] {
  const at = now.toISOString();
  const rows = 'urls' in feeds
    ? db.prepare(`UPDATE feeds SET next_poll_at = ?, retry_after_until = NULL WHERE ${DUE.polled}
        AND (subscribed_url IN (SELECT value FROM json_each(?)) OR url IN (SELECT value FROM json_each(?))) RETURNING subscribed_url`).pluck().all(at, JSON.stringify(feeds.urls), JSON.stringify(feeds.urls))
    : db.prepare(`UPDATE feeds SET next_poll_at = ? WHERE ${DUE.polled} AND last_result = 'error'
        AND substr(last_error, 1, length(?)) = ? RETURNING subscribed_url`).pluck().all(at, feeds.lastErrorStartsWith, feeds.lastErrorStartsWith);
  return checkedRows(text, rows, 'pollFeedsNow');
}

export function feedById(db: Db, id: number): FeedRow | undefined {
  return checkedRow(feedRow, db.prepare('SELECT * FROM feeds WHERE id = ?').get(id), 'feedById');
}

export function countEnabledFeeds(db: Db): number {
  return checkedRow(count, db.prepare(`SELECT COUNT(*) FROM feeds WHERE ${DUE.polled}`).pluck().get(), 'countEnabledFeeds') ?? 0;
}

/**
 * Per-feed counts for status, each table read once (grouped), never a query per feed. The articles
 * are read in their table's order and grouped aside: through the feed index, each row is a lookup
 * of its own (2.3× slower at 100,000 articles).
 */
export function feedCounts(db: Db): Map<number, FeedCounts> {
  return feedCountsOf({
    items: db.prepare(`SELECT feed_id AS feedId, COUNT(*) AS items, SUM(page_state = 'captured') AS pages, SUM(page_state = 'failed') AS failedPages,
      SUM(page_state = 'pending') AS pendingPages FROM items GROUP BY feed_id`).all(),
    errors: db.prepare('SELECT feed_id AS feedId, page_error AS error, MAX(page_due_at) FROM items WHERE page_error IS NOT NULL GROUP BY feed_id').all(),
    articles: db.prepare(`SELECT feed_id AS feedId, COUNT(*) AS articles, COALESCE(SUM(versions), 0) AS versions, COALESCE(SUM(checks), 0) AS checks, MIN(next_check_at) AS nextRevisit,
      SUM(failed_checks > 0) AS retrying, MIN(CASE WHEN failed_checks > 0 THEN next_check_at END) AS nextRetry FROM articles NOT INDEXED GROUP BY feed_id`).all(),
  });
}
