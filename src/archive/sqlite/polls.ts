import type { Db } from './database.js';
import { feedUpdateOf, POLL_INSERT, pollEntryRow, pollRowOf, type PollEntryRow } from '../rules/polls.js';
import { revisitItemAt } from '../rules/articles.js';
import { runOn } from './sql.js';
import { upsertItems } from '../rules/items.js';
import { recordPushPoll } from './websub.js';
import { z } from 'zod';
import { checkedRows, count, text } from '../rows.js';
import type { PollRecord, UpsertReport } from '../store.js';

/**
 * Everything one poll changes — the poll row, the items, the feed's validators, hints, URL and
 * schedule — in a single transaction: a kill at any moment leaves the poll wholly done or
 * wholly undone.
 */
export function recordPoll(db: Db, feed: { id: number; url: string }, poll: PollRecord): UpsertReport {
  return db.transaction(() => {
    const report = poll.parsed ? runOn(db, upsertItems(feed.id, poll.parsed.items, poll.startedAt, poll.capturePages)) : { newItems: 0, changedItems: 0, changedIds: [] };
    if (poll.revisitChangedItemsAt) for (const itemId of report.changedIds) runOn(db, revisitItemAt(itemId, poll.revisitChangedItemsAt.toISOString()));
    db.prepare(POLL_INSERT).run(pollRowOf(feed, poll, report));
    db.prepare(`UPDATE feeds SET
        url = COALESCE(@permanentUrl, url),
        etag = CASE WHEN @ok THEN COALESCE(@etag, CASE WHEN @notModified THEN etag ELSE NULL END) ELSE etag END,
        last_modified = CASE WHEN @ok THEN COALESCE(@lastModified, CASE WHEN @notModified THEN last_modified ELSE NULL END) ELSE last_modified END,
        feed_title = COALESCE(@feedTitle, feed_title), site_url = COALESCE(site_url, @siteUrl), description = COALESCE(@description, description),
        format = COALESCE(@format, format),
        ttl_minutes = CASE WHEN @parsed THEN @ttl ELSE ttl_minutes END,
        skip_hours = COALESCE(@skipHours, skip_hours), skip_days = COALESCE(@skipDays, skip_days),
        update_period = CASE WHEN @parsed THEN @updatePeriod ELSE update_period END,
        update_frequency = CASE WHEN @parsed THEN @updateFrequency ELSE update_frequency END,
        hub = CASE WHEN @parsed THEN @hub ELSE hub END,
        self_url = CASE WHEN @parsed THEN @selfUrl ELSE self_url END,
        last_gap = COALESCE(@gap, last_gap),
        next_poll_at = @nextPollAt, poll_risk_at = @riskAt, schedule_reason = @reason, schedule_state = @scheduleState,
        rate_per_hour = @ratePerHour, window_size = @window,
        max_age_seconds = CASE WHEN @ok THEN @maxAge ELSE max_age_seconds END,
        retry_after_until = @retryAfterUntil,
        last_poll_at = @startedAt, last_status = @status, last_result = @result, last_error = @error,
        error_count = error_count + @failed, consecutive_errors = CASE WHEN @failed THEN consecutive_errors + 1 ELSE 0 END,
        updated_at = @stamp
      WHERE id = @id`).run(feedUpdateOf(feed, poll, new Date()));
    if (poll.push) recordPushPoll(db, feed.id, poll.push);
    return report;
  })();
}

/** A feed's latest polls, newest first (the index on feed and time). */
export function recentPolls(db: Db, feedId: number, limit: number): PollEntryRow[] {
  return checkedRows(pollEntryRow, db.prepare(`SELECT started_at, result, status, duration_ms, items_seen, new_items, changed_items, error, gap
    FROM polls WHERE feed_id = ? ORDER BY started_at DESC LIMIT ?`).all(feedId, limit), 'recentPolls');
}

const pollDayRow = z.object({ day: text, polls: count, ok: count, notModified: count, errors: count, newItems: count, gaps: count });

/** A feed's polling per day, newest first: the polls kept, grouped, and the days retention summed (migration 0006). */
export function pollDays(db: Db, feedId: number, limit: number): Array<z.infer<typeof pollDayRow>> {
  return checkedRows(pollDayRow, db.prepare(`SELECT day, SUM(polls) AS polls, SUM(ok) AS ok, SUM(not_modified) AS notModified, SUM(errors) AS errors,
      SUM(new_items) AS newItems, SUM(gaps) AS gaps FROM (
        SELECT substr(started_at, 1, 10) AS day, COUNT(*) AS polls, SUM(result = 'ok') AS ok, SUM(result = 'not-modified') AS not_modified,
          SUM(result = 'error') AS errors, SUM(new_items) AS new_items, SUM(gap IS NOT NULL) AS gaps
        FROM polls WHERE feed_id = @feedId GROUP BY day
        UNION ALL
        SELECT day, polls, ok, not_modified, errors, new_items, 0 FROM poll_days WHERE feed_id = @feedId)
    GROUP BY day ORDER BY day DESC LIMIT @limit`).all({ feedId, limit }), 'pollDays');
}
