import { DUE } from '../due.js';
import { feedCountsOf, type FeedCounts } from '../feed-counts.js';
import { changesFeed, feedValues, leavesList } from '../list-rows.js';
import { feedRow, type FeedRow } from '../feeds.js';
import { checkedRow, checkedRows, count, text } from '../rows.js';
import type { ListSync, Subscription, SyncReport } from '../store.js';
import type { Sql } from './database.js';

/** Feeds on PostgreSQL: the list's sync, the feeds status lists, polls asked for now (as feeds.ts on SQLite). */

/** Makes the subscriptions match the list; feeds gone from it are unsubscribed, never deleted. Run in a transaction. */
export async function syncSubscriptions(sql: Sql, subscriptions: Subscription[], now = new Date(), how: ListSync = { mode: 'replace' }): Promise<SyncReport> {
  const stamp = now.toISOString();
  const report: SyncReport = { added: [], updated: [], removed: [] };
  // Locked: two list syncs at once (two daemons, the web app) apply one after the other.
  const existing = new Map(checkedRows(feedRow, await sql.all('SELECT * FROM feeds ORDER BY id FOR UPDATE'), 'syncSubscriptions').map((row) => [row.subscribed_url, row]));
  const listed = new Set<string>();
  for (const subscription of subscriptions) {
    listed.add(subscription.url);
    const values = feedValues(subscription, stamp);
    const row = existing.get(subscription.url);
    if (!row) {
      const added = await sql.run(`INSERT INTO feeds (subscribed_url, url, title, site_url, tags, cron, enabled, subscribed, next_poll_at, created_at, updated_at)
        VALUES (@url, @url, @title, @siteUrl, @tags, @cron, @enabled, 1, NULL, @stamp, @stamp) ON CONFLICT (subscribed_url) DO NOTHING`, values);
      if (added) report.added.push(subscription.url);
    } else if (changesFeed(row, values, how)) {
      await sql.run(`UPDATE feeds SET title = @title, site_url = COALESCE(@siteUrl::text, site_url), tags = @tags, cron = @cron::text, enabled = @enabled::integer, subscribed = 1,
        next_poll_at = CASE WHEN cron IS DISTINCT FROM @cron::text OR enabled <> @enabled::integer OR subscribed = 0 THEN NULL ELSE next_poll_at END,
        updated_at = @stamp WHERE id = @id`, { ...values, id: row.id });
      report.updated.push(subscription.url);
    }
  }
  for (const row of existing.values()) {
    if (leavesList(row, listed, how)) {
      await sql.run('UPDATE feeds SET subscribed = 0, enabled = 0, updated_at = ? WHERE id = ?', [stamp, row.id]);
      report.removed.push(row.subscribed_url);
    }
  }
  return report;
}

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
  const [items, errors, articles, checks] = await Promise.all([
    sql.all(`SELECT feed_id AS "feedId", COUNT(*) AS items, COUNT(*) FILTER (WHERE page_state = 'captured') AS pages,
      COUNT(*) FILTER (WHERE page_state = 'failed') AS "failedPages", COUNT(*) FILTER (WHERE page_state = 'pending') AS "pendingPages" FROM items GROUP BY feed_id`),
    sql.all(`SELECT DISTINCT ON (feed_id) feed_id AS "feedId", page_error AS error FROM items WHERE page_error IS NOT NULL
      ORDER BY feed_id, page_due_at DESC NULLS LAST`),
    sql.all(`SELECT feed_id AS "feedId", COUNT(*) AS articles, COALESCE(SUM(versions), 0) AS versions, MIN(next_check_at) AS "nextRevisit"
      FROM articles GROUP BY feed_id`),
    sql.all('SELECT articles.feed_id AS "feedId", COUNT(*) AS checks FROM checks JOIN articles ON articles.id = checks.article_id GROUP BY articles.feed_id'),
  ]);
  return feedCountsOf({ items, errors, articles, checks });
}
