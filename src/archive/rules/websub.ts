import { z } from 'zod';
import { integer, nullableInteger, nullableText, text } from '../rows.js';
import type { PushCandidate, PushSubscriptionRecord } from '../store.js';

/** WebSub subscriptions' rows and the candidates query, on either engine. */

export const subscriptionRow = z.object({
  feed_id: integer, hub: text, topic: text, callback: text, secret: text,
  state: z.enum(['subscribing', 'active', 'unsubscribing', 'denied', 'failed', 'dropped']),
  attempts: integer, retry_at: nullableText, lease_until: nullableText, renew_at: nullableText,
  last_push_at: nullableText, pushes: integer, missed_in_row: integer, last_error: nullableText,
});

export type SubscriptionRow = z.infer<typeof subscriptionRow>;

export const recordOf = (row: SubscriptionRow): PushSubscriptionRecord => ({
  feedId: row.feed_id, hub: row.hub, topic: row.topic, callback: row.callback, secret: row.secret, state: row.state, attempts: row.attempts,
  retryAt: row.retry_at, leaseUntil: row.lease_until, renewAt: row.renew_at, lastPushAt: row.last_push_at, pushes: row.pushes, lastError: row.last_error,
  missedInRow: row.missed_in_row,
});

export const COLUMNS = 'feed_id, hub, topic, callback, secret, state, attempts, retry_at, lease_until, renew_at, last_push_at, pushes, missed_in_row, last_error';

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
