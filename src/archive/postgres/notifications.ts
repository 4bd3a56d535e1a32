import { z } from 'zod';
import { archiveEvents } from '../domain-rows.js';
import { gapEventRow, versionEventRow } from '../rules/notifications.js';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import type { ArchiveEvent, DeliveryOutcome, NotificationSummary, NotifyEvent, QueuedNotification } from '../store.js';
import type { Sql } from './database.js';
import { maxId } from './polls.js';

/** The outbox of webhook deliveries on PostgreSQL (as notifications.ts on SQLite). */

const cursorRow = z.object({ version_id: integer, poll_id: integer });

/**
 * A webhook's events after its cursor, composed, queued, and the cursor moved, in the caller's
 * transaction; the cursor row is locked, so two daemons never queue one event twice.
 */
export async function queueWebhookEvents(sql: Sql, webhook: string, compose: (webhook: string, event: ArchiveEvent) => { event: NotifyEvent; payload: string } | null, limit: number, now: Date): Promise<number> {
  await sql.run(`INSERT INTO notify_cursors (webhook, version_id, poll_id) VALUES (?, (SELECT COALESCE(MAX(id), 0) FROM versions), (SELECT COALESCE(MAX(id), 0) FROM polls))
    ON CONFLICT (webhook) DO NOTHING`, [webhook]);
  const cursor = checkedRow(cursorRow, await sql.get('SELECT version_id, poll_id FROM notify_cursors WHERE webhook = ? FOR UPDATE', [webhook]), 'notify cursor')!;
  const versions = checkedRows(versionEventRow, await sql.all(`SELECT versions.id, articles.id AS "articleId", versions.n, articles.title, articles.url, feeds.subscribed_url AS feed,
      COALESCE(feeds.title, feeds.feed_title) AS "feedTitle", feeds.tags, versions.captured_at AS "capturedAt", versions.change, versions.summary, versions.diff
    FROM versions JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id
    WHERE versions.id > ? ORDER BY versions.id LIMIT ?`, [cursor.version_id, limit]), 'notify versions');
  const lastPoll = await maxId(sql, 'polls');
  const gaps = checkedRows(gapEventRow, await sql.all(`SELECT polls.id, feeds.id AS "feedId", feeds.subscribed_url AS feed, COALESCE(feeds.title, feeds.feed_title) AS "feedTitle", feeds.tags, polls.gap,
      polls.feed_event AS "feedEvent", polls.started_at AS "startedAt", polls.status, polls.error
    FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE polls.id > ? AND polls.id <= ? AND (polls.gap IS NOT NULL OR polls.feed_event IS NOT NULL) ORDER BY polls.id`,
  [cursor.poll_id, lastPoll]), 'notify gaps');
  let queued = 0;
  for (const event of archiveEvents(versions, gaps)) {
    const delivery = compose(webhook, event);
    if (!delivery) continue;
    await sql.run('INSERT INTO notifications (webhook, event, payload, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)',
      [webhook, delivery.event, delivery.payload, now.toISOString(), now.toISOString()]);
    queued++;
  }
  await sql.run('UPDATE notify_cursors SET version_id = ?, poll_id = ? WHERE webhook = ?', [versions.at(-1)?.id ?? cursor.version_id, Math.max(cursor.poll_id, lastPoll), webhook]);
  return queued;
}

const queuedRow = z.object({ id: integer, webhook: text, event: z.enum(['article', 'version', 'gap', 'feed']), payload: text, attempts: integer });

export async function dueNotifications(sql: Sql, now: Date, limit: number): Promise<QueuedNotification[]> {
  return checkedRows(queuedRow, await sql.all(`SELECT id, webhook, event, payload, attempts FROM notifications
    WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`, [now.toISOString(), limit]), 'dueNotifications');
}

export async function recordDelivery(sql: Sql, id: number, outcome: DeliveryOutcome, now: Date): Promise<void> {
  if (outcome.delivered) {
    await sql.run('UPDATE notifications SET attempts = attempts + 1, next_attempt_at = NULL, delivered_at = ?, last_status = ?, last_error = NULL WHERE id = ?', [now.toISOString(), outcome.status, id]);
  } else {
    await sql.run('UPDATE notifications SET attempts = attempts + 1, next_attempt_at = ?, last_status = ?, last_error = ? WHERE id = ?', [outcome.retryAt.toISOString(), outcome.status, outcome.error, id]);
  }
}

const summaryRow = z.object({ webhook: text, delivered: count, waiting: count, lastDeliveredAt: nullableText, lastError: nullableText });

export async function notificationSummary(sql: Sql): Promise<NotificationSummary[]> {
  return checkedRows(summaryRow, await sql.all(`SELECT webhook, COUNT(delivered_at) AS delivered, COUNT(next_attempt_at) AS waiting, MAX(delivered_at) AS "lastDeliveredAt",
      (SELECT last_error FROM notifications AS failed WHERE failed.webhook = notifications.webhook AND failed.last_error IS NOT NULL ORDER BY failed.id DESC LIMIT 1) AS "lastError"
    FROM notifications GROUP BY webhook ORDER BY webhook`), 'notificationSummary');
}
