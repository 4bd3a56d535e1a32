import { DUE } from './due.js';
import { z } from 'zod';
import type { Db } from './database.js';
import { feedCountsOf, type FeedCounts } from './feed-counts.js';
import { changesFeed, feedValues, leavesList } from './list-rows.js';
import { checkedRow, checkedRows, count, integer, nullableInteger, nullableReal, nullableText, text } from './rows.js';
import type { ListSync, Subscription, SyncReport } from './store.js';

export const feedRow = z.object({
  id: integer,
  subscribed_url: text,
  url: text,
  title: nullableText,
  feed_title: nullableText,
  site_url: nullableText,
  description: nullableText,
  tags: text,
  cron: nullableText,
  enabled: integer,
  subscribed: integer,
  format: nullableText,
  etag: nullableText,
  last_modified: nullableText,
  ttl_minutes: nullableInteger,
  skip_hours: text,
  skip_days: text,
  update_period: nullableText,
  update_frequency: nullableInteger,
  hub: nullableText,
  self_url: nullableText.optional(),
  next_poll_at: nullableText,
  schedule_reason: nullableText,
  retry_after_until: nullableText,
  last_poll_at: nullableText,
  last_status: nullableInteger,
  last_result: nullableText,
  last_error: nullableText,
  error_count: integer,
  consecutive_errors: integer,
  schedule_state: nullableText,
  rate_per_hour: nullableReal,
  window_size: nullableInteger,
  max_age_seconds: nullableInteger,
  last_gap: nullableText.optional(),
  created_at: text,
  updated_at: text,
});
export type FeedRow = z.infer<typeof feedRow>;

/**
 * Makes the database's subscriptions match the list, in one transaction. Feeds gone from the
 * list are marked unsubscribed, never deleted: their archive stays.
 */
export function syncSubscriptions(db: Db, subscriptions: Subscription[], now = new Date(), how: ListSync = { mode: 'replace' }): SyncReport {
  const stamp = now.toISOString();
  const report: SyncReport = { added: [], updated: [], removed: [] };
  const existing = new Map(checkedRows(feedRow, db.prepare('SELECT * FROM feeds').all(), 'syncSubscriptions').map((row) => [row.subscribed_url, row]));
  const insert = db.prepare(`INSERT INTO feeds (subscribed_url, url, title, site_url, tags, cron, enabled, subscribed, next_poll_at, created_at, updated_at)
    VALUES (@url, @url, @title, @siteUrl, @tags, @cron, @enabled, 1, NULL, @stamp, @stamp)`);
  const update = db.prepare(`UPDATE feeds SET title = @title, site_url = COALESCE(@siteUrl, site_url), tags = @tags,
    cron = @cron, enabled = @enabled, subscribed = 1,
    next_poll_at = CASE WHEN cron IS NOT @cron OR enabled <> @enabled OR subscribed = 0 THEN NULL ELSE next_poll_at END,
    updated_at = @stamp WHERE id = @id`);
  const unsubscribe = db.prepare('UPDATE feeds SET subscribed = 0, enabled = 0, updated_at = ? WHERE id = ?');
  db.transaction(() => {
    const listed = new Set<string>();
    for (const subscription of subscriptions) {
      listed.add(subscription.url);
      const values = feedValues(subscription, stamp);
      const row = existing.get(subscription.url);
      if (!row) {
        insert.run(values);
        report.added.push(subscription.url);
      } else if (changesFeed(row, values, how)) {
        update.run({ ...values, id: row.id });
        report.updated.push(subscription.url);
      }
    }
    for (const row of existing.values()) {
      if (leavesList(row, listed, how)) {
        unsubscribe.run(stamp, row.id);
        report.removed.push(row.subscribed_url);
      }
    }
  })();
  return report;
}

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

/** Per-feed counts for status, each table read once (grouped), never a query per feed. */
export function feedCounts(db: Db): Map<number, FeedCounts> {
  return feedCountsOf({
    items: db.prepare(`SELECT feed_id AS feedId, COUNT(*) AS items, SUM(page_state = 'captured') AS pages, SUM(page_state = 'failed') AS failedPages,
      SUM(page_state = 'pending') AS pendingPages FROM items GROUP BY feed_id`).all(),
    errors: db.prepare('SELECT feed_id AS feedId, page_error AS error, MAX(page_due_at) FROM items WHERE page_error IS NOT NULL GROUP BY feed_id').all(),
    articles: db.prepare(`SELECT feed_id AS feedId, COUNT(*) AS articles, COALESCE(SUM(versions), 0) AS versions, MIN(next_check_at) AS nextRevisit
      FROM articles GROUP BY feed_id`).all(),
    checks: db.prepare('SELECT articles.feed_id AS feedId, COUNT(*) AS checks FROM checks JOIN articles ON articles.id = checks.article_id GROUP BY articles.feed_id').all(),
  });
}
