import type { Db } from './database.js';
import { candidateRow, COLUMNS, PUSH_CANDIDATES, pushCandidateOf, recordOf, subscriptionRow } from '../rules/websub.js';
import { checkedRow, checkedRows, integer } from '../rows.js';
import type { PushCandidate, PushRequest, PushSubscriptionRecord } from '../store.js';

/**
 * WebSub subscriptions (migration 0019): one row per feed a hub pushes, read and written here;
 * when to subscribe, renew or give up is decided in daemon/websub.ts and web/websub.ts.
 */

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
