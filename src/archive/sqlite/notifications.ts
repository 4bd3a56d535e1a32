import { z } from 'zod';
import type { Db } from './database.js';
import { gapEventRow, versionEventRow, type GapEventRow, type VersionEventRow } from '../rules/notifications.js';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import type { DeliveryOutcome, NotificationSummary, NotifyEvent, QueuedNotification } from '../store.js';

/**
 * The outbox of webhook deliveries (migrations/0018). Events are read after each webhook's
 * cursor and queued in the transaction that moves it, so a restart neither loses nor repeats
 * one; a delivery leaves the queue only when a receiver answered 2xx.
 */

const cursorRow = z.object({ version_id: integer, poll_id: integer });

/** The events after a webhook's cursor, oldest first, and the cursor past them (a new webhook's starts after the newest). */
export function eventsAfterCursor(db: Db, webhook: string, limit: number): { versions: VersionEventRow[]; gaps: GapEventRow[]; cursor: { version_id: number; poll_id: number } } {
  let cursor = checkedRow(cursorRow, db.prepare('SELECT version_id, poll_id FROM notify_cursors WHERE webhook = ?').get(webhook), 'notify cursor');
  if (!cursor) {
    cursor = {
      version_id: checkedRow(count, db.prepare('SELECT COALESCE(MAX(id), 0) FROM versions').pluck().get(), 'max version') ?? 0,
      poll_id: checkedRow(count, db.prepare('SELECT COALESCE(MAX(id), 0) FROM polls').pluck().get(), 'max poll') ?? 0,
    };
    db.prepare('INSERT INTO notify_cursors (webhook, version_id, poll_id) VALUES (?, ?, ?)').run(webhook, cursor.version_id, cursor.poll_id);
  }
  const versions = checkedRows(versionEventRow, db.prepare(`SELECT versions.id, articles.id AS articleId, versions.n, articles.title, articles.url, feeds.subscribed_url AS feed,
      COALESCE(feeds.title, feeds.feed_title) AS feedTitle, feeds.tags, versions.captured_at AS capturedAt, versions.change, versions.summary, versions.diff
    FROM versions JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id
    WHERE versions.id > ? ORDER BY versions.id LIMIT ?`).all(cursor.version_id, limit), 'notify versions');
  const lastPoll = checkedRow(count, db.prepare('SELECT COALESCE(MAX(id), 0) FROM polls').pluck().get(), 'max poll') ?? 0;
  // Polls that found a gap or made their feed failing or gone.
  const gaps = checkedRows(gapEventRow, db.prepare(`SELECT polls.id, feeds.id AS feedId, feeds.subscribed_url AS feed, COALESCE(feeds.title, feeds.feed_title) AS feedTitle, feeds.tags, polls.gap,
      polls.feed_event AS feedEvent, polls.started_at AS startedAt, polls.status, polls.error
    FROM polls JOIN feeds ON feeds.id = polls.feed_id WHERE polls.id > ? AND polls.id <= ? AND (polls.gap IS NOT NULL OR polls.feed_event IS NOT NULL) ORDER BY polls.id`).all(cursor.poll_id, lastPoll), 'notify gaps');
  return { versions, gaps, cursor: { version_id: versions.at(-1)?.id ?? cursor.version_id, poll_id: Math.max(cursor.poll_id, lastPoll) } };
}

export function queueDelivery(db: Db, webhook: string, delivery: { event: NotifyEvent; payload: string }, now: Date): void {
  db.prepare('INSERT INTO notifications (webhook, event, payload, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)')
    .run(webhook, delivery.event, delivery.payload, now.toISOString(), now.toISOString());
}

export function moveCursor(db: Db, webhook: string, cursor: { version_id: number; poll_id: number }): void {
  db.prepare('UPDATE notify_cursors SET version_id = ?, poll_id = ? WHERE webhook = ?').run(cursor.version_id, cursor.poll_id, webhook);
}

const queuedRow = z.object({ id: integer, webhook: text, event: z.enum(['article', 'version', 'gap', 'feed']), payload: text, attempts: integer });

export function dueNotifications(db: Db, now: Date, limit: number): QueuedNotification[] {
  return checkedRows(queuedRow, db.prepare(`SELECT id, webhook, event, payload, attempts FROM notifications INDEXED BY notifications_due
    WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`).all(now.toISOString(), limit), 'dueNotifications');
}

export function recordDelivery(db: Db, id: number, outcome: DeliveryOutcome, now: Date): void {
  if (outcome.delivered) {
    db.prepare('UPDATE notifications SET attempts = attempts + 1, next_attempt_at = NULL, delivered_at = ?, last_status = ?, last_error = NULL WHERE id = ?')
      .run(now.toISOString(), outcome.status, id);
  } else {
    db.prepare('UPDATE notifications SET attempts = attempts + 1, next_attempt_at = ?, last_status = ?, last_error = ? WHERE id = ?')
      .run(outcome.retryAt.toISOString(), outcome.status, outcome.error, id);
  }
}

const summaryRow = z.object({ webhook: text, delivered: count, waiting: count, lastDeliveredAt: nullableText, lastError: nullableText });

export function notificationSummary(db: Db): NotificationSummary[] {
  return checkedRows(summaryRow, db.prepare(`SELECT webhook, COUNT(delivered_at) AS delivered, COUNT(next_attempt_at) AS waiting, MAX(delivered_at) AS lastDeliveredAt,
      (SELECT last_error FROM notifications AS failed WHERE failed.webhook = notifications.webhook AND failed.last_error IS NOT NULL ORDER BY failed.id DESC LIMIT 1) AS lastError
    FROM notifications GROUP BY webhook ORDER BY webhook`).all(), 'notificationSummary');
}
