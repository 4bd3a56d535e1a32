import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, checkedRows, integer, nullableInteger, nullableText, text } from './rows.js';
import type { PushCandidate, PushRequest, PushSubscriptionRecord } from './store.js';

/**
 * WebSub subscriptions (migration 0019): one row per feed a hub pushes, read and written here;
 * when to subscribe, renew or give up is decided in daemon/websub.ts and web/websub.ts.
 */

export const subscriptionRow = z.object({
  feed_id: integer, hub: text, topic: text, callback: text, secret: text,
  state: z.enum(['subscribing', 'active', 'unsubscribing', 'denied', 'failed', 'dropped']),
  attempts: integer, retry_at: nullableText, lease_until: nullableText, renew_at: nullableText,
  last_push_at: nullableText, pushes: integer, missed_in_row: integer, last_error: nullableText,
});
type SubscriptionRow = z.infer<typeof subscriptionRow>;

export const recordOf = (row: SubscriptionRow): PushSubscriptionRecord => ({
  feedId: row.feed_id, hub: row.hub, topic: row.topic, callback: row.callback, secret: row.secret, state: row.state, attempts: row.attempts,
  retryAt: row.retry_at, leaseUntil: row.lease_until, renewAt: row.renew_at, lastPushAt: row.last_push_at, pushes: row.pushes, lastError: row.last_error,
  missedInRow: row.missed_in_row,
});

export const COLUMNS = 'feed_id, hub, topic, callback, secret, state, attempts, retry_at, lease_until, renew_at, last_push_at, pushes, missed_in_row, last_error';

export function subscriptionOfFeed(db: Db, feedId: number): PushSubscriptionRecord | null {
  const row = checkedRow(subscriptionRow, db.prepare(`SELECT ${COLUMNS} FROM websub_subscriptions WHERE feed_id = ?`).get(feedId), 'subscriptionOfFeed');
  return row ? recordOf(row) : null;
}

export function subscriptionByCallback(db: Db, callback: string): PushSubscriptionRecord | null {
  const row = checkedRow(subscriptionRow, db.prepare(`SELECT ${COLUMNS} FROM websub_subscriptions WHERE callback = ?`).get(callback), 'subscriptionByCallback');
  return row ? recordOf(row) : null;
}

/** Every feed's subscription (status reads them all at once). */
export function subscriptionsByFeed(db: Db): Map<number, PushSubscriptionRecord> {
  const rows = checkedRows(subscriptionRow, db.prepare(`SELECT ${COLUMNS} FROM websub_subscriptions`).all(), 'subscriptionsByFeed');
  return new Map(rows.map((row) => [row.feed_id, recordOf(row)]));
}

export const candidateRow = z.object({ id: integer, url: text, hub: nullableText, self_url: nullableText, wanted: integer, has_subscription: nullableInteger });
type CandidateRow = z.infer<typeof candidateRow>;

/**
 * Feeds whose subscription may need a request now (daemon/websub.ts decides which): a feed with a
 * hub and none yet; a request to retry or a lease to renew; a subscription its feed no longer
 * wants (paused, unsubscribed, another hub or topic); a dropped one whose feed went. The same
 * query on both engines.
 */
export const PUSH_CANDIDATES = `SELECT feeds.id, feeds.url, feeds.hub, feeds.self_url, CASE WHEN feeds.enabled = 1 AND feeds.subscribed = 1 THEN 1 ELSE 0 END AS wanted,
      websub_subscriptions.feed_id AS has_subscription
    FROM feeds LEFT JOIN websub_subscriptions ON websub_subscriptions.feed_id = feeds.id
    WHERE (websub_subscriptions.feed_id IS NULL AND feeds.hub IS NOT NULL AND feeds.enabled = 1 AND feeds.subscribed = 1)
      OR (websub_subscriptions.feed_id IS NOT NULL AND (
        (websub_subscriptions.state IN ('subscribing', 'failed', 'denied', 'unsubscribing') AND websub_subscriptions.retry_at <= @at)
        OR (websub_subscriptions.state = 'active' AND websub_subscriptions.renew_at <= @at)
        OR (websub_subscriptions.state IN ('active', 'subscribing') AND (feeds.enabled = 0 OR feeds.subscribed = 0 OR feeds.hub IS NULL
          OR feeds.hub <> websub_subscriptions.hub OR COALESCE(feeds.self_url, feeds.url) <> websub_subscriptions.topic))
        OR (websub_subscriptions.state = 'dropped' AND (feeds.enabled = 0 OR feeds.subscribed = 0))))
    ORDER BY feeds.id LIMIT @limit`;

/** A PUSH_CANDIDATES row as the daemon sees it, with its subscription (read by the engine). */
export const pushCandidateOf = (row: CandidateRow, subscription: PushSubscriptionRecord | null): PushCandidate => ({
  feedId: row.id, feedUrl: row.url, hub: row.hub, topic: row.hub === null ? null : row.self_url ?? row.url, wanted: row.wanted === 1, subscription,
});

export function pushCandidates(db: Db, now: Date, limit: number): PushCandidate[] {
  const rows = checkedRows(candidateRow, db.prepare(PUSH_CANDIDATES).all({ at: now.toISOString(), limit }), 'pushCandidates');
  return rows.map((row) => pushCandidateOf(row, row.has_subscription === null ? null : subscriptionOfFeed(db, row.id)));
}

export function recordPushRequest(db: Db, feedId: number, request: PushRequest): void {
  db.prepare(`INSERT INTO websub_subscriptions (feed_id, hub, topic, callback, secret, state, requested_at, retry_at)
      VALUES (@feedId, @hub, @topic, @callback, @secret, @state, @at, @retryAt)
    ON CONFLICT (feed_id) DO UPDATE SET hub = @hub, topic = @topic, callback = @callback, secret = @secret, state = @state, requested_at = @at,
      retry_at = @retryAt, attempts = attempts + 1`).run({
    feedId, hub: request.hub, topic: request.topic, callback: request.callback, secret: request.secret, state: request.state,
    at: request.at.toISOString(), retryAt: request.retryAt.toISOString(),
  });
}

export function recordPushFailure(db: Db, feedId: number, error: string, retryAt: Date): void {
  db.prepare(`UPDATE websub_subscriptions SET state = CASE WHEN state = 'unsubscribing' THEN state ELSE 'failed' END, last_error = ?, retry_at = ?
    WHERE feed_id = ?`).run(error, retryAt.toISOString(), feedId);
}

export function confirmPush(db: Db, callback: string, verified: { mode: 'subscribe'; leaseUntil: Date; renewAt: Date } | { mode: 'unsubscribe' }, now: Date): void {
  if (verified.mode === 'unsubscribe') {
    db.prepare('DELETE FROM websub_subscriptions WHERE callback = ?').run(callback);
    return;
  }
  db.prepare(`UPDATE websub_subscriptions SET state = 'active', attempts = 0, retry_at = NULL, verified_at = ?, lease_until = ?, renew_at = ?, last_error = NULL,
    missed_in_row = 0 WHERE callback = ?`).run(now.toISOString(), verified.leaseUntil.toISOString(), verified.renewAt.toISOString(), callback);
}

export function denyPush(db: Db, callback: string, reason: string, retryAt: Date): void {
  db.prepare("UPDATE websub_subscriptions SET state = 'denied', last_error = ?, retry_at = ? WHERE callback = ?").run(`the hub denied the subscription: ${reason}`, retryAt.toISOString(), callback);
}

/** A verified push: counted, and the feed due now (the push says it changed; its items still come from a poll of the origin). */
export function recordPush(db: Db, callback: string, now: Date): void {
  const at = now.toISOString();
  const feedId = checkedRow(integer, db.prepare('UPDATE websub_subscriptions SET last_push_at = ?, pushes = pushes + 1 WHERE callback = ? RETURNING feed_id').pluck().get(at, callback), 'recordPush');
  if (feedId !== undefined) db.prepare('UPDATE feeds SET next_poll_at = ? WHERE id = ? AND enabled = 1 AND subscribed = 1').run(at, feedId);
}

/** After a poll of a pushed feed: its count of unannounced items, and the subscription dropped when the hub stays silent. */
export function recordPushPoll(db: Db, feedId: number, push: { missedInRow: number; drop: boolean }): void {
  db.prepare(`UPDATE websub_subscriptions SET missed_in_row = ?, state = CASE WHEN ? THEN 'dropped' ELSE state END,
      last_error = CASE WHEN ? THEN 'the hub stayed silent while polls found new items: polled in full again' ELSE last_error END
    WHERE feed_id = ?`).run(push.missedInRow, push.drop ? 1 : 0, push.drop ? 1 : 0, feedId);
}

/** A subscription given up on (its feed no longer wants it, and the hub never confirmed the end). */
export function forgetPush(db: Db, feedId: number): void {
  db.prepare('DELETE FROM websub_subscriptions WHERE feed_id = ?').run(feedId);
}
