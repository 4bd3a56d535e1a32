import type { Db } from './database.js';
import { revisitItemAt } from './rules/articles.js';
import { runOn } from './sqlite-sql.js';
import { upsertItems } from './rules/items.js';
import { recordPushPoll } from './websub.js';
import { z } from 'zod';
import { checkedRows, count, integer, nullableInteger, nullableText, text } from './rows.js';
import type { PollRecord, UpsertReport } from './store.js';

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
        next_poll_at = @nextPollAt, schedule_reason = @reason, schedule_state = @scheduleState,
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

/** The poll's row, for POLL_INSERT (both backends). */
export const POLL_INSERT = `INSERT INTO polls (feed_id, started_at, duration_ms, url, final_url, status, result, bytes, items_seen, new_items, changed_items, warnings, error, gap, feed_event)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

export function pollRowOf(feed: { id: number; url: string }, poll: PollRecord, report: UpsertReport): unknown[] {
  const { fetch, parsed } = poll;
  return [feed.id, poll.startedAt.toISOString(), Math.round(poll.durationMs), feed.url, fetch?.finalUrl ?? null,
    fetch?.status ?? null, poll.result, fetch ? fetch.bytes : null, parsed?.items.length ?? 0, report.newItems, report.changedItems,
    JSON.stringify(parsed?.warnings ?? []), poll.error, poll.gap ? JSON.stringify(poll.gap) : null, poll.feedEvent ?? null];
}

/**
 * What a poll changes on its feed's row, as the named values of each backend's UPDATE: the
 * validators (kept on a 304, dropped when a 200 sends none, untouched by a failure), what the
 * document says of itself, the schedule, and the failure counts. Flags are 0/1 (SQLite binds no
 * booleans; PostgreSQL casts them).
 */
export function feedUpdateOf(feed: { id: number }, poll: PollRecord, now: Date): Record<string, string | number | null> {
  const { fetch, parsed } = poll;
  const failed = poll.result === 'error' && poll.countsAsFailure !== false;
  const info = parsed?.feed;
  return {
    id: feed.id,
    permanentUrl: fetch?.permanentUrl ?? null,
    ok: failed ? 0 : 1,
    notModified: fetch?.notModified ? 1 : 0,
    etag: fetch?.headers['etag'] ?? null,
    lastModified: fetch?.headers['last-modified'] ?? null,
    feedTitle: info?.title ?? null,
    siteUrl: info?.link ?? null,
    description: info?.description ?? null,
    format: parsed?.format ?? null,
    parsed: parsed ? 1 : 0,
    ttl: info?.ttl ?? null,
    skipHours: info ? JSON.stringify(info.skipHours) : null,
    skipDays: info ? JSON.stringify(info.skipDays) : null,
    updatePeriod: info?.updatePeriod ?? null,
    updateFrequency: info?.updateFrequency ?? null,
    hub: info?.hub ?? null,
    selfUrl: info?.self ?? null,
    gap: poll.gap ? JSON.stringify(poll.gap) : null,
    nextPollAt: poll.schedule.nextPollAt.toISOString(),
    reason: poll.schedule.reason,
    scheduleState: poll.schedule.state,
    ratePerHour: poll.schedule.ratePerHour,
    window: poll.schedule.window,
    maxAge: poll.schedule.maxAgeSeconds,
    retryAfterUntil: fetch?.retryAfterMs ? new Date(poll.startedAt.getTime() + fetch.retryAfterMs).toISOString() : null,
    startedAt: poll.startedAt.toISOString(),
    status: fetch?.status ?? null,
    result: poll.result,
    error: poll.error,
    failed: failed ? 1 : 0,
    stamp: now.toISOString(),
  };
}

export const pollEntryRow = z.object({
  started_at: text, result: z.enum(['ok', 'not-modified', 'error']), status: nullableInteger, duration_ms: integer, items_seen: integer, new_items: integer,
  changed_items: integer, error: nullableText, gap: nullableText,
});
export type PollEntryRow = z.infer<typeof pollEntryRow>;

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
