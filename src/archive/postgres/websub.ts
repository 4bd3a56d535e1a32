import { checkedRow, checkedRows, integer } from '../rows.js';
import { candidateRow, COLUMNS, PUSH_CANDIDATES, pushCandidateOf, recordOf, subscriptionRow } from '../rules/websub.js';
import type { PushCandidate, PushRequest, PushSubscriptionRecord } from '../store.js';
import type { Sql } from './database.js';

/** WebSub subscriptions on PostgreSQL (as websub.ts on SQLite). */

export async function subscriptionOfFeed(sql: Sql, feedId: number): Promise<PushSubscriptionRecord | null> {
  const row = checkedRow(subscriptionRow, await sql.get(`SELECT ${COLUMNS} FROM websub_subscriptions WHERE feed_id = ?`, [feedId]), 'subscriptionOfFeed');
  return row ? recordOf(row) : null;
}

export async function subscriptionByCallback(sql: Sql, callback: string): Promise<PushSubscriptionRecord | null> {
  const row = checkedRow(subscriptionRow, await sql.get(`SELECT ${COLUMNS} FROM websub_subscriptions WHERE callback = ?`, [callback]), 'subscriptionByCallback');
  return row ? recordOf(row) : null;
}

export async function subscriptionsByFeed(sql: Sql): Promise<Map<number, PushSubscriptionRecord>> {
  const rows = checkedRows(subscriptionRow, await sql.all(`SELECT ${COLUMNS} FROM websub_subscriptions`), 'subscriptionsByFeed');
  return new Map(rows.map((row) => [row.feed_id, recordOf(row)]));
}

export async function pushCandidates(sql: Sql, now: Date, limit: number): Promise<PushCandidate[]> {
  const rows = checkedRows(candidateRow, await sql.all(PUSH_CANDIDATES, { at: now.toISOString(), limit }), 'pushCandidates');
  const candidates: PushCandidate[] = [];
  for (const row of rows) candidates.push(pushCandidateOf(row, row.has_subscription === null ? null : await subscriptionOfFeed(sql, row.id)));
  return candidates;
}

export async function recordPushRequest(sql: Sql, feedId: number, request: PushRequest): Promise<void> {
  await sql.run(`INSERT INTO websub_subscriptions (feed_id, hub, topic, callback, secret, state, requested_at, retry_at)
      VALUES (@feedId, @hub, @topic, @callback, @secret, @state, @at, @retryAt)
    ON CONFLICT (feed_id) DO UPDATE SET hub = excluded.hub, topic = excluded.topic, callback = excluded.callback, secret = excluded.secret, state = excluded.state,
      requested_at = excluded.requested_at, retry_at = excluded.retry_at, attempts = websub_subscriptions.attempts + 1`, {
    feedId, hub: request.hub, topic: request.topic, callback: request.callback, secret: request.secret, state: request.state,
    at: request.at.toISOString(), retryAt: request.retryAt.toISOString(),
  });
}

export async function recordPushFailure(sql: Sql, feedId: number, error: string, retryAt: Date): Promise<void> {
  await sql.run(`UPDATE websub_subscriptions SET state = CASE WHEN state = 'unsubscribing' THEN state ELSE 'failed' END, last_error = ?, retry_at = ?
    WHERE feed_id = ?`, [error, retryAt.toISOString(), feedId]);
}

export async function confirmPush(sql: Sql, callback: string, verified: { mode: 'subscribe'; leaseUntil: Date; renewAt: Date } | { mode: 'unsubscribe' }, now: Date): Promise<void> {
  if (verified.mode === 'unsubscribe') {
    await sql.run('DELETE FROM websub_subscriptions WHERE callback = ?', [callback]);
    return;
  }
  await sql.run(`UPDATE websub_subscriptions SET state = 'active', attempts = 0, retry_at = NULL, verified_at = ?, lease_until = ?, renew_at = ?, last_error = NULL,
    missed_in_row = 0 WHERE callback = ?`, [now.toISOString(), verified.leaseUntil.toISOString(), verified.renewAt.toISOString(), callback]);
}

export async function denyPush(sql: Sql, callback: string, reason: string, retryAt: Date): Promise<void> {
  await sql.run("UPDATE websub_subscriptions SET state = 'denied', last_error = ?, retry_at = ? WHERE callback = ?", [`the hub denied the subscription: ${reason}`, retryAt.toISOString(), callback]);
}

export async function recordPush(sql: Sql, callback: string, now: Date): Promise<void> {
  const at = now.toISOString();
  const feedId = checkedRow(integer, (await sql.column('UPDATE websub_subscriptions SET last_push_at = ?, pushes = pushes + 1 WHERE callback = ? RETURNING feed_id', [at, callback]))[0], 'recordPush');
  if (feedId !== undefined) await sql.run('UPDATE feeds SET next_poll_at = ? WHERE id = ? AND enabled = 1 AND subscribed = 1', [at, feedId]);
}

export async function forgetPush(sql: Sql, feedId: number): Promise<void> {
  await sql.run('DELETE FROM websub_subscriptions WHERE feed_id = ?', [feedId]);
}
