import { DUE } from '../due.js';
import { feedCountsOf, type FeedCounts } from '../feed-counts.js';
import { feedRow, type FeedRow } from '../rules/feeds.js';
import { checkedRow, checkedRows, count, text } from '../rows.js';
import type { Sql } from './database.js';

/** Feeds on PostgreSQL: the list's sync, the feeds status lists, polls asked for now (as feeds.ts on SQLite). */

export async function listFeeds(sql: Sql): Promise<FeedRow[]> {
  return checkedRows(feedRow, await sql.all('SELECT * FROM feeds WHERE subscribed = 1 ORDER BY id'), 'listFeeds');
}

export async function pollFeedsNow(sql: Sql, feeds: { urls: string[] } | { lastErrorStartsWith: string }, now: Date): Promise<string[]> {
  const at = now.toISOString();
  const rows = 'urls' in feeds
    ? await sql.column(`UPDATE feeds SET next_poll_at = ?, retry_after_until = NULL WHERE ${DUE.polled}
        AND (subscribed_url = ANY(?::text[]) OR url = ANY(?::text[])) RETURNING subscribed_url`, [at, feeds.urls, feeds.urls])
    : await sql.column(`UPDATE feeds SET next_poll_at = ? WHERE ${DUE.polled} AND last_result = 'error'
        AND starts_with(last_error, ?) RETURNING subscribed_url`, [at, feeds.lastErrorStartsWith]);
  return checkedRows(text, rows, 'pollFeedsNow');
}

export async function feedById(sql: Sql, id: number): Promise<FeedRow | undefined> {
  return checkedRow(feedRow, await sql.get('SELECT * FROM feeds WHERE id = ?', [id]), 'feedById');
}

export async function countEnabledFeeds(sql: Sql): Promise<number> {
  return checkedRow(count, (await sql.column(`SELECT COUNT(*) FROM feeds WHERE ${DUE.polled}`))[0], 'countEnabledFeeds') ?? 0;
}

/** Per-feed counts for status, each table read once (grouped). */
export async function feedCounts(sql: Sql): Promise<Map<number, FeedCounts>> {
  const [items, errors, articles] = await Promise.all([
    sql.all(`SELECT feed_id AS "feedId", COUNT(*) AS items, COUNT(*) FILTER (WHERE page_state = 'captured') AS pages,
      COUNT(*) FILTER (WHERE page_state = 'failed') AS "failedPages", COUNT(*) FILTER (WHERE page_state = 'pending') AS "pendingPages" FROM items GROUP BY feed_id`),
    sql.all(`SELECT DISTINCT ON (feed_id) feed_id AS "feedId", page_error AS error FROM items WHERE page_error IS NOT NULL
      ORDER BY feed_id, page_due_at DESC NULLS LAST`),
    sql.all(`SELECT feed_id AS "feedId", COUNT(*) AS articles, COALESCE(SUM(versions), 0) AS versions, COALESCE(SUM(checks), 0) AS checks, MIN(next_check_at) AS "nextRevisit",
      COUNT(*) FILTER (WHERE failed_checks > 0) AS retrying, MIN(next_check_at) FILTER (WHERE failed_checks > 0) AS "nextRetry" FROM articles GROUP BY feed_id`),
  ]);
  return feedCountsOf({ items, errors, articles });
}
