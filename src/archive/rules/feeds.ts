import { z } from 'zod';
import { integer, nullableInteger, nullableReal, nullableText, text } from '../rows.js';
import { changesFeed, feedValues, leavesList } from '../list-rows.js';
import { rows, run, type Steps } from '../steps.js';
import type { ListSync, Subscription, SyncReport } from '../store.js';

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
  /** The feed's own requisite kinds, JSON (migration 0024); null: the settings'. */
  requisites: nullableText,
  created_at: text,
  updated_at: text,
});
export type FeedRow = z.infer<typeof feedRow>;

/**
 * Makes the archive's subscriptions match the list (in the caller's transaction). Feeds gone from
 * the list are marked unsubscribed, never deleted: their archive stays. The feeds are read locked:
 * two syncs at once (two daemons, the web app) apply one after the other.
 */
export function* syncSubscriptions(subscriptions: Subscription[], now = new Date(), how: ListSync = { mode: 'replace' }): Steps<SyncReport> {
  const stamp = now.toISOString();
  const report: SyncReport = { added: [], updated: [], removed: [] };
  const existing = new Map((yield* rows(feedRow, 'SELECT * FROM feeds ORDER BY id', [], 'syncSubscriptions', { lock: true })).map((row) => [row.subscribed_url, row]));
  const listed = new Set<string>();
  for (const subscription of subscriptions) {
    listed.add(subscription.url);
    const values = feedValues(subscription, stamp);
    const row = existing.get(subscription.url);
    if (!row) {
      // Another daemon's sync may have added it a moment ago: then it is not this sync's.
      const added = yield* run(`INSERT INTO feeds (subscribed_url, url, title, site_url, tags, cron, enabled, requisites, subscribed, next_poll_at, created_at, updated_at)
        VALUES (@url, @url, @title, @siteUrl, @tags, @cron, @enabled, @requisites, 1, NULL, @stamp, @stamp) ON CONFLICT (subscribed_url) DO NOTHING`, values);
      if (added) report.added.push(subscription.url);
    } else if (changesFeed(row, values, how)) {
      yield* run(`UPDATE feeds SET title = @title, site_url = COALESCE(CAST(@siteUrl AS TEXT), site_url), tags = @tags, cron = CAST(@cron AS TEXT),
          enabled = CAST(@enabled AS INTEGER), requisites = CAST(@requisites AS TEXT), subscribed = 1,
          next_poll_at = CASE WHEN cron IS DISTINCT FROM CAST(@cron AS TEXT) OR enabled <> CAST(@enabled AS INTEGER) OR subscribed = 0 THEN NULL ELSE next_poll_at END,
          updated_at = @stamp WHERE id = @id`, { ...values, id: row.id });
      report.updated.push(subscription.url);
    }
  }
  for (const row of existing.values()) {
    if (leavesList(row, listed, how)) {
      yield* run('UPDATE feeds SET subscribed = 0, enabled = 0, updated_at = ? WHERE id = ?', [stamp, row.id]);
      report.removed.push(row.subscribed_url);
    }
  }
  return report;
}
