import { z } from 'zod';
import type { Db } from './database.js';
import { DUE, DUE_ORDER, duePollOrder } from '../due.js';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import type { WorkKind, WorkRef, Backlog } from '../store.js';

/**
 * The daemon's work queues, as the scheduler pass reads them. Each query walks one partial index
 * in the order work is taken and stops at `limit`: a pass costs the same on a new archive and on
 * one with millions of snapshots (test/unit/query-plans.test.ts checks the plans). The indexes
 * hold enabled feeds' work only (migrations/0014): a disabled feed's pages and revisits wait
 * outside them, not in every pass's way.
 */

const dueRow = z.object({ id: integer, url: text, due: nullableText });
type DueRow = z.infer<typeof dueRow>;
const captureRow = dueRow.extend({ appeared: text });

const refs = (kind: WorkKind, rows: DueRow[], now: Date): WorkRef[] =>
  rows.map((row) => ({ kind, id: row.id, url: row.url, dueAt: row.due === null ? now.getTime() : Date.parse(row.due) }));

/**
 * Enabled feeds due for a poll, in the order of due.ts `duePollOrder`: those whose items are at
 * risk, those never polled, the rest of what is overdue. Searches of the indexes, not one walk:
 * `IS NULL OR <= ?` cannot bound a search, and with fewer feeds due than `limit` (the usual case)
 * the walk read every feed on every pass — about 1 ms a pass at 10,000 feeds, against 0.02 for the
 * searches (test/unit/query-plans.test.ts checks the plans).
 */
export function duePolls(db: Db, now: Date, limit: number): WorkRef[] {
  const at = now.toISOString();
  const atRisk = checkedRows(dueRow, db.prepare(`SELECT id, url, next_poll_at AS due FROM feeds INDEXED BY feeds_at_risk
    WHERE ${DUE.polled} AND poll_risk_at <= ? AND next_poll_at <= ? ORDER BY ${DUE_ORDER.pollsAtRisk} LIMIT ?`).all(at, at, limit), 'duePolls');
  const fresh = atRisk.length >= limit ? [] : checkedRows(dueRow, db.prepare(`SELECT id, url, next_poll_at AS due FROM feeds INDEXED BY feeds_due
    WHERE ${DUE.polled} AND next_poll_at IS NULL ORDER BY id LIMIT ?`).all(limit - atRisk.length), 'duePolls');
  const rest = limit - atRisk.length - fresh.length;
  const overdue = rest <= 0 ? [] : checkedRows(dueRow, db.prepare(`SELECT id, url, next_poll_at AS due FROM feeds INDEXED BY feeds_due
    WHERE ${DUE.polled} AND next_poll_at <= ? ORDER BY ${DUE_ORDER.polls} LIMIT ?`).all(at, rest + atRisk.length), 'duePolls');
  return duePollOrder(refs('poll', atRisk, now), refs('poll', fresh, now), refs('poll', overdue, now), limit);
}

const APPEARED = 'min(coalesce(published, first_seen), first_seen)';
const CAPTURE_COLUMNS = `id, COALESCE(orig_link, link) AS url, first_seen AS due, ${APPEARED} AS appeared`;

/**
 * Items whose page waits for its first capture, newest item first — by the time it appeared (its
 * feed's date, never later than first seen; migrations/0012): a busy feed's new item goes before
 * a backlog of old ones, also when both were first seen by the same round of polls; among items
 * of one date, in the feed's own order (migrations/0016). Then the pages that failed and wait to
 * be tried again (`retry`), those due longest first: a first attempt never waits behind a retry,
 * which is the least likely to succeed (issue #52). Pages never tried are walked in that order;
 * retries are searched by when they are due (migrations/0014).
 */
export function dueCaptures(db: Db, now: Date, limit: number): WorkRef[] {
  const at = now.toISOString();
  const fresh = checkedRows(captureRow, db.prepare(`SELECT ${CAPTURE_COLUMNS} FROM items INDEXED BY items_capture
    WHERE ${DUE.neverTried} AND page_due_at <= ?
    ORDER BY ${APPEARED} DESC, id ASC LIMIT ?`).all(at, limit), 'dueCaptures');
  const retries = fresh.length >= limit ? [] : checkedRows(captureRow, db.prepare(`SELECT ${CAPTURE_COLUMNS} FROM items INDEXED BY items_retry
    WHERE ${DUE.retried} AND page_due_at <= ?
    ORDER BY ${DUE_ORDER.retries} LIMIT ?`).all(at, limit - fresh.length), 'dueCaptures');
  return [...refs('capture', fresh, now), ...refs('capture', retries, now).map((ref) => ({ ...ref, retry: true }))];
}

/** Articles due for a revisit, longest overdue first. */
export function dueRevisits(db: Db, now: Date, limit: number): WorkRef[] {
  const rows = db.prepare(`SELECT articles.id, articles.url, articles.next_check_at AS due
    FROM articles INDEXED BY articles_due
    WHERE ${DUE.revisited} AND articles.next_check_at <= ?
    ORDER BY ${DUE_ORDER.revisits} LIMIT ?`).all(now.toISOString(), limit);
  return refs('revisit', checkedRows(dueRow, rows, 'dueRevisits'), now);
}

/** The earliest time any queued work falls due (ms), or null when nothing is scheduled. */
export function nextWorkAt(db: Db, kinds: { capture: boolean; revisit: boolean }): number | null {
  const times = [
    db.prepare(`SELECT MIN(next_poll_at) FROM feeds INDEXED BY feeds_due WHERE ${DUE.polled}`).pluck().get(),
    kinds.capture ? db.prepare(`SELECT MIN(page_due_at) FROM items INDEXED BY items_retry WHERE ${DUE.retried}`).pluck().get() : null,
    kinds.revisit ? db.prepare(`SELECT MIN(next_check_at) FROM articles INDEXED BY articles_due WHERE ${DUE.revisited}`).pluck().get() : null,
  ].filter((at): at is string => typeof at === 'string').map(Date.parse);
  return times.length ? Math.min(...times) : null;
}

/**
 * Snapshots waiting for extraction, with their feed: first captures before revisits, newest
 * first within each (a hot item's page before a backlog).
 */
const queuedRow = z.object({ snapshotId: integer, feedId: integer });

export function queuedExtractions(db: Db, limit: number): Array<z.infer<typeof queuedRow>> {
  return checkedRows(queuedRow, db.prepare(`SELECT extraction_queue.snapshot_id AS snapshotId, items.feed_id AS feedId FROM extraction_queue INDEXED BY extraction_queue_order
    JOIN snapshots ON snapshots.id = extraction_queue.snapshot_id JOIN items ON items.id = snapshots.item_id
    ORDER BY extraction_queue.priority, extraction_queue.snapshot_id DESC LIMIT ?`).all(limit), 'queuedExtractions');
}

/** Whether more than `count` snapshots wait for extraction (reads at most count + 1 rows). */
export function extractionBacklogOver(db: Db, count: number): boolean {
  return db.prepare('SELECT 1 FROM extraction_queue LIMIT 1 OFFSET ?').get(count) !== undefined;
}

export function backlog(db: Db, now: Date): Backlog {
  const at = now.toISOString();
  const counted = (sql: string, ...params: unknown[]) => checkedRow(count, db.prepare(sql).pluck().get(...params), 'backlog') ?? 0;
  return {
    duePolls: counted(`SELECT COUNT(*) FROM feeds INDEXED BY feeds_due WHERE ${DUE.polled} AND next_poll_at IS NULL`)
      + counted(`SELECT COUNT(*) FROM feeds INDEXED BY feeds_due WHERE ${DUE.polled} AND next_poll_at <= ?`, at),
    pendingCaptures: counted(`SELECT COUNT(*) FROM items INDEXED BY items_capture WHERE ${DUE.neverTried}`)
      + counted(`SELECT COUNT(*) FROM items INDEXED BY items_retry WHERE ${DUE.retried}`),
    dueRevisits: counted(`SELECT COUNT(*) FROM articles INDEXED BY articles_due WHERE ${DUE.revisited} AND next_check_at <= ?`, at),
    queuedExtractions: counted('SELECT COUNT(*) FROM extraction_queue'),
    queuedRequisites: counted('SELECT COUNT(*) FROM requisite_queue'),
  };
}
