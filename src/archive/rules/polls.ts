import { z } from 'zod';
import { integer, nullableInteger, nullableText, text } from '../rows.js';
import type { PollRecord, UpsertReport } from '../store.js';

/** What one poll writes, on either engine: the poll's row and the feed's new state (the UPDATE itself is each engine's, for its booleans and casts). */

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
    riskAt: poll.schedule.riskAt?.toISOString() ?? null,
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
