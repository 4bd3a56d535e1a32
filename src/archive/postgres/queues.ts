import { z } from 'zod';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import { DUE, DUE_ORDER, duePollOrder } from '../due.js';
import type { Backlog, WorkKind, WorkRef } from '../store.js';
import type { Sql } from './database.js';

/**
 * The daemon's work queues on PostgreSQL, in the order queues.ts reads them on SQLite, each on
 * the same partial index (migrations/postgres/0001: the same predicates, so the planner uses it) —
 * but for the never-polled feeds, found by feeds_never_polled (postgres/0014: PostgreSQL does not
 * search feeds_due for a NULL time in id order, as SQLite does).
 */

const dueRow = z.object({ id: integer, url: text, due: nullableText });
type DueRow = z.infer<typeof dueRow>;
const refs = (kind: WorkKind, rows: DueRow[], now: Date): WorkRef[] =>
  rows.map((row) => ({ kind, id: row.id, url: row.url, dueAt: row.due === null ? now.getTime() : Date.parse(row.due) }));

const APPEARED = 'LEAST(COALESCE(published, first_seen), first_seen)';
const CAPTURE_COLUMNS = 'id, COALESCE(orig_link, link) AS url, first_seen AS due';

/** Enabled feeds due for a poll, in the order of due.ts `duePollOrder` (queues.ts on SQLite). */
export async function duePolls(sql: Sql, now: Date, limit: number): Promise<WorkRef[]> {
  const at = now.toISOString();
  const atRisk = checkedRows(dueRow, await sql.all(`SELECT id, url, next_poll_at AS due FROM feeds
    WHERE ${DUE.polled} AND poll_risk_at <= ? AND next_poll_at <= ? ORDER BY ${DUE_ORDER.pollsAtRisk} LIMIT ?`, [at, at, limit]), 'duePolls');
  const fresh = atRisk.length >= limit ? [] : checkedRows(dueRow, await sql.all(`SELECT id, url, next_poll_at AS due FROM feeds
    WHERE ${DUE.polled} AND next_poll_at IS NULL ORDER BY id LIMIT ?`, [limit - atRisk.length]), 'duePolls');
  const rest = limit - atRisk.length - fresh.length;
  const overdue = rest <= 0 ? [] : checkedRows(dueRow, await sql.all(`SELECT id, url, next_poll_at AS due FROM feeds
    WHERE ${DUE.polled} AND next_poll_at <= ? ORDER BY ${DUE_ORDER.polls} LIMIT ?`, [at, rest + atRisk.length]), 'duePolls');
  return duePollOrder(refs('poll', atRisk, now), refs('poll', fresh, now), refs('poll', overdue, now), limit);
}

export async function dueCaptures(sql: Sql, now: Date, limit: number): Promise<WorkRef[]> {
  const at = now.toISOString();
  const fresh = checkedRows(dueRow, await sql.all(`SELECT ${CAPTURE_COLUMNS} FROM items WHERE ${DUE.neverTried} AND page_due_at <= ?
    ORDER BY ${APPEARED} DESC, id ASC LIMIT ?`, [at, limit]), 'dueCaptures');
  const retries = fresh.length >= limit ? [] : checkedRows(dueRow, await sql.all(`SELECT ${CAPTURE_COLUMNS} FROM items WHERE ${DUE.retried} AND page_due_at <= ?
    ORDER BY ${DUE_ORDER.retries} LIMIT ?`, [at, limit - fresh.length]), 'dueCaptures');
  return [...refs('capture', fresh, now), ...refs('capture', retries, now).map((ref) => ({ ...ref, retry: true }))];
}

export async function dueRevisits(sql: Sql, now: Date, limit: number): Promise<WorkRef[]> {
  const rows = await sql.all(`SELECT id, url, next_check_at AS due FROM articles
    WHERE ${DUE.revisited} AND next_check_at <= ? ORDER BY ${DUE_ORDER.revisits} LIMIT ?`, [now.toISOString(), limit]);
  return refs('revisit', checkedRows(dueRow, rows, 'dueRevisits'), now);
}

export async function nextWorkAt(sql: Sql, kinds: { capture: boolean; revisit: boolean }): Promise<number | null> {
  // One statement for the three kinds: the loop asks after every pass, and each round trip counts.
  const row = checkedRow(z.object({ poll: nullableText, capture: nullableText, revisit: nullableText }), await sql.get(`SELECT
    (SELECT MIN(next_poll_at) FROM feeds WHERE ${DUE.polled}) AS poll,
    ${kinds.capture ? `(SELECT MIN(page_due_at) FROM items WHERE ${DUE.retried})` : 'NULL::text'} AS capture,
    ${kinds.revisit ? `(SELECT MIN(next_check_at) FROM articles WHERE ${DUE.revisited})` : 'NULL::text'} AS revisit`), 'nextWorkAt');
  const times = row ? [row.poll, row.capture, row.revisit].filter((at): at is string => at !== null).map(Date.parse) : [];
  return times.length ? Math.min(...times) : null;
}

const queuedRow = z.object({ snapshotId: integer, feedId: integer });

export async function queuedExtractions(sql: Sql, limit: number): Promise<Array<z.infer<typeof queuedRow>>> {
  return checkedRows(queuedRow, await sql.all(`SELECT extraction_queue.snapshot_id AS "snapshotId", items.feed_id AS "feedId" FROM extraction_queue
    JOIN snapshots ON snapshots.id = extraction_queue.snapshot_id JOIN items ON items.id = snapshots.item_id
    ORDER BY extraction_queue.priority, extraction_queue.snapshot_id DESC LIMIT ?`, [limit]), 'queuedExtractions');
}

export async function extractionBacklogOver(sql: Sql, limit: number): Promise<boolean> {
  return (await sql.get('SELECT 1 FROM extraction_queue LIMIT 1 OFFSET ?', [limit])) !== undefined;
}

export async function backlog(sql: Sql, now: Date): Promise<Backlog> {
  const at = now.toISOString();
  const row = checkedRow(z.object({ duePolls: count, pendingCaptures: count, dueRevisits: count, queuedExtractions: count, queuedRequisites: count }), await sql.get(`SELECT
      (SELECT COUNT(*) FROM feeds WHERE ${DUE.polled} AND next_poll_at IS NULL) + (SELECT COUNT(*) FROM feeds WHERE ${DUE.polled} AND next_poll_at <= @at) AS "duePolls",
      (SELECT COUNT(*) FROM items WHERE ${DUE.neverTried}) + (SELECT COUNT(*) FROM items WHERE ${DUE.retried}) AS "pendingCaptures",
      (SELECT COUNT(*) FROM articles WHERE ${DUE.revisited} AND next_check_at <= @at) AS "dueRevisits",
      (SELECT COUNT(*) FROM extraction_queue) AS "queuedExtractions",
      (SELECT COUNT(*) FROM requisite_queue) AS "queuedRequisites"`, { at }), 'backlog');
  return row ?? { duePolls: 0, pendingCaptures: 0, dueRevisits: 0, queuedExtractions: 0, queuedRequisites: 0 };
}
