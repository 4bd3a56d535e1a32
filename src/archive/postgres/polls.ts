import { z } from 'zod';
import { upsertItems } from '../rules/items.js';
import { runStepsAsync } from '../steps.js';
import { feedUpdateOf, POLL_INSERT, pollEntryRow, pollRowOf, type PollEntryRow } from '../rules/polls.js';
import { checkedRow, checkedRows, count, text } from '../rows.js';
import type { PollRecord, UpsertReport } from '../store.js';
import type { Sql } from './database.js';

/** Polls on PostgreSQL: everything one poll changes, in the caller's transaction (as polls.ts and items.ts on SQLite). */

export async function recordPoll(sql: Sql, feed: { id: number; url: string }, poll: PollRecord): Promise<UpsertReport> {
  const report = poll.parsed ? await runStepsAsync(sql, upsertItems(feed.id, poll.parsed.items, poll.startedAt, poll.capturePages)) : { newItems: 0, changedItems: 0, changedIds: [] };
  if (poll.revisitChangedItemsAt && report.changedIds.length) {
    await sql.run('UPDATE articles SET next_check_at = ? WHERE item_id = ANY(?::bigint[])', [poll.revisitChangedItemsAt.toISOString(), report.changedIds]);
  }
  await sql.run(POLL_INSERT, pollRowOf(feed, poll, report));
  await sql.run(`UPDATE feeds SET
      url = COALESCE(@permanentUrl::text, url),
      etag = CASE WHEN @ok::boolean THEN COALESCE(@etag::text, CASE WHEN @notModified::boolean THEN etag ELSE NULL END) ELSE etag END,
      last_modified = CASE WHEN @ok::boolean THEN COALESCE(@lastModified::text, CASE WHEN @notModified::boolean THEN last_modified ELSE NULL END) ELSE last_modified END,
      feed_title = COALESCE(@feedTitle::text, feed_title), site_url = COALESCE(site_url, @siteUrl::text), description = COALESCE(@description::text, description),
      format = COALESCE(@format::text, format),
      ttl_minutes = CASE WHEN @parsed::boolean THEN @ttl::integer ELSE ttl_minutes END,
      skip_hours = COALESCE(@skipHours::text, skip_hours), skip_days = COALESCE(@skipDays::text, skip_days),
      update_period = CASE WHEN @parsed::boolean THEN @updatePeriod::text ELSE update_period END,
      update_frequency = CASE WHEN @parsed::boolean THEN @updateFrequency::integer ELSE update_frequency END,
      hub = CASE WHEN @parsed::boolean THEN @hub::text ELSE hub END,
      self_url = CASE WHEN @parsed::boolean THEN @selfUrl::text ELSE self_url END,
      last_gap = COALESCE(@gap::text, last_gap),
      next_poll_at = @nextPollAt, poll_risk_at = @riskAt, schedule_reason = @reason, schedule_state = @scheduleState,
      rate_per_hour = @ratePerHour, window_size = @window,
      max_age_seconds = CASE WHEN @ok::boolean THEN @maxAge::bigint ELSE max_age_seconds END,
      retry_after_until = @retryAfterUntil,
      last_poll_at = @startedAt, last_status = @status, last_result = @result, last_error = @error,
      error_count = error_count + @failed::integer, consecutive_errors = CASE WHEN @failed::integer = 1 THEN consecutive_errors + 1 ELSE 0 END,
      updated_at = @stamp
    WHERE id = @id`, feedUpdateOf(feed, poll, new Date()));
  if (poll.push) {
    await sql.run(`UPDATE websub_subscriptions SET missed_in_row = ?, state = CASE WHEN ?::boolean THEN 'dropped' ELSE state END,
        last_error = CASE WHEN ?::boolean THEN 'the hub stayed silent while polls found new items: polled in full again' ELSE last_error END
      WHERE feed_id = ?`, [poll.push.missedInRow, poll.push.drop, poll.push.drop, feed.id]);
  }
  return report;
}

export async function recentPolls(sql: Sql, feedId: number, limit: number): Promise<PollEntryRow[]> {
  return checkedRows(pollEntryRow, await sql.all(`SELECT started_at, result, status, duration_ms, items_seen, new_items, changed_items, error, gap
    FROM polls WHERE feed_id = ? ORDER BY started_at DESC LIMIT ?`, [feedId, limit]), 'recentPolls');
}

const pollDayRow = z.object({ day: text, polls: count, ok: count, notModified: count, errors: count, newItems: count, gaps: count });

export async function pollDays(sql: Sql, feedId: number, limit: number): Promise<Array<z.infer<typeof pollDayRow>>> {
  return checkedRows(pollDayRow, await sql.all(`SELECT day, SUM(polls) AS polls, SUM(ok) AS ok, SUM(not_modified) AS "notModified", SUM(errors) AS errors,
      SUM(new_items) AS "newItems", SUM(gaps) AS gaps FROM (
        SELECT substr(started_at, 1, 10) AS day, COUNT(*) AS polls, COUNT(*) FILTER (WHERE result = 'ok') AS ok, COUNT(*) FILTER (WHERE result = 'not-modified') AS not_modified,
          COUNT(*) FILTER (WHERE result = 'error') AS errors, SUM(new_items) AS new_items, COUNT(gap) AS gaps
        FROM polls WHERE feed_id = @feedId GROUP BY day
        UNION ALL
        SELECT day, polls, ok, not_modified, errors, new_items, 0 FROM poll_days WHERE feed_id = @feedId) AS days
    GROUP BY day ORDER BY day DESC LIMIT @limit`, { feedId, limit }), 'pollDays');
}

export const maxId = async (sql: Sql, table: 'versions' | 'polls'): Promise<number> =>
  checkedRow(count, (await sql.column(`SELECT COALESCE(MAX(id), 0) FROM ${table}`))[0], `max id of ${table}`) ?? 0;
