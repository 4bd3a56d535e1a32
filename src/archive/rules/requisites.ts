import { z } from 'zod';
import type { RequisiteContent, RequisiteHistory, RequisiteKind, RequisiteRecord, RequisiteSetting, StoredRequisite } from '../model.js';
import { integer, json, nullableInteger, nullableText, text } from '../rows.js';
import { row, rows, run, value, values, type Steps } from '../steps.js';
import { sha256 } from '../codec.js';
import { deleteUnusedBlob, dequeueRequisites, getBlob, putEncodedBlob } from './captures.js';

/**
 * A capture's requisites on either engine (issue #67; migrations 0023, postgres/0004): each
 * fetched for its capture and listed with it, its bytes in `blobs` once per sha256 — a site's
 * stylesheet is stored once however many pages, versions and sites use it.
 */

const requisiteKind = z.enum(['image', 'style', 'font', 'media', 'icon']) satisfies z.ZodType<RequisiteKind>;

const requisiteRow = z.object({
  url: text, kind: requisiteKind, via: text, fetchedAt: text, status: nullableInteger, contentType: nullableText, sha256: nullableText, error: nullableText,
}) satisfies z.ZodType<StoredRequisite>;

/** Requisites per INSERT: 11 parameters each, well under either engine's limit. */
const RECORD_CHUNK = 200;

/**
 * A capture's requisites, recorded together (in the caller's transaction): their bytes first, once
 * per sha256. The capture leaves the requisite queue in the same transaction.
 */
export function* recordRequisites(snapshotId: number, requisites: RequisiteRecord[]): Steps<void> {
  yield* dequeueRequisites(snapshotId);
  // A capture found unchanged while its requisites were fetched has lost its body (dropCaptureBody): nothing left to replay them with.
  const body = yield* value(nullableText, 'SELECT sha256 FROM snapshots WHERE id = ?', [snapshotId], 'recordRequisites');
  if (body === undefined || body === null) return;
  const listed: unknown[][] = [];
  for (const requisite of requisites) {
    const body = requisite.body;
    const sha256 = body === null ? null : 'data' in body ? yield* putEncodedBlob(body) : body.sha256;
    listed.push([snapshotId, requisite.url, requisite.kind, requisite.via, requisite.fetchedAt.toISOString(), requisite.status, requisite.contentType, sha256,
      requisite.etag, requisite.lastModified, requisite.error]);
  }
  // Listed together, a statement per RECORD_CHUNK rows: on PostgreSQL each statement is a round trip inside the transaction.
  for (let start = 0; start < listed.length; start += RECORD_CHUNK) {
    const chunk = listed.slice(start, start + RECORD_CHUNK);
    yield* run(`INSERT INTO requisites (snapshot_id, url, kind, via, fetched_at, status, content_type, sha256, etag, last_modified, error)
      VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT (snapshot_id, url) DO NOTHING`, chunk.flat());
  }
}

const COLUMNS = 'url, kind, via, fetched_at AS "fetchedAt", status, content_type AS "contentType", sha256, error';

/** A capture's requisites, in the order they were found. */
export function requisitesOf(snapshotId: number): Steps<StoredRequisite[]> {
  return rows(requisiteRow, `SELECT ${COLUMNS} FROM requisites WHERE snapshot_id = ? ORDER BY id`, [snapshotId], 'requisitesOf');
}

const historyRow = z.object({
  id: integer, url: text, fetchedAt: text, status: nullableInteger, contentType: nullableText, error: nullableText, sha256: nullableText, etag: nullableText, lastModified: nullableText,
});

/** URLs per statement: a page names tens of requisites, a gallery a few hundred; SQLite's and PostgreSQL's parameter limits are far above. */
const HISTORY_CHUNK = 500;

/**
 * Each URL's last fetch and its last kept one (a conditional GET's validators), for many URLs
 * in one statement: a capture's requisites are looked up together, not one round trip each (on
 * PostgreSQL a page's forty requisites were eighty round trips — issue #70, item 2). Per URL it
 * is the same two index steps as one URL alone, as correlated subqueries — its last fetch in
 * requisites_url, its last kept one in requisites_kept; the rows they name are read once. A URL
 * never fetched has no entry.
 */
export function* requisiteHistories(urls: readonly string[]): Steps<Map<string, RequisiteHistory>> {
  const histories = new Map<string, RequisiteHistory>();
  const distinct = [...new Set(urls)];
  for (let start = 0; start < distinct.length; start += HISTORY_CHUNK) {
    const chunk = distinct.slice(start, start + HISTORY_CHUNK);
    const newest = (kept: string) => `SELECT (SELECT x.id FROM requisites x WHERE x.url = wanted.url${kept} ORDER BY x.fetched_at DESC, x.id DESC LIMIT 1) FROM wanted`;
    const found = yield* rows(historyRow, `WITH wanted (url) AS (VALUES ${chunk.map(() => '(CAST(? AS TEXT))').join(', ')})
      SELECT id, url, fetched_at AS "fetchedAt", status, content_type AS "contentType", error, sha256, etag, last_modified AS "lastModified" FROM requisites
      WHERE id IN (${newest('')} UNION ${newest(' AND x.sha256 IS NOT NULL')})`, chunk, 'requisiteHistories');
    // At most two rows a URL: its last fetch, and its last kept one when that is an earlier fetch.
    found.sort((a, b) => (a.fetchedAt === b.fetchedAt ? b.id - a.id : a.fetchedAt < b.fetchedAt ? 1 : -1));
    for (const fetch of found) {
      if (!histories.has(fetch.url)) {
        histories.set(fetch.url, { last: { fetchedAt: fetch.fetchedAt, status: fetch.status, contentType: fetch.contentType, error: fetch.error, kept: fetch.sha256 !== null }, kept: null });
      }
      const history = histories.get(fetch.url)!;
      if (history.kept === null && fetch.sha256 !== null) {
        history.kept = { fetchedAt: fetch.fetchedAt, status: fetch.status, sha256: fetch.sha256, contentType: fetch.contentType, etag: fetch.etag, lastModified: fetch.lastModified };
      }
    }
  }
  return histories;
}

const keptRow = z.object({ id: integer, fetchedAt: text, contentType: nullableText, sha256: text });

/**
 * The kept fetch of `url` nearest to `at`, with its bytes: the latest at or before `at` and the
 * earliest after it, each one step of the requisites_kept index, the nearer of the two.
 */
export function* requisiteAt(url: string, at: Date): Steps<RequisiteContent | null> {
  const when = at.toISOString();
  const before = yield* row(keptRow, `SELECT id, fetched_at AS "fetchedAt", content_type AS "contentType", sha256 FROM requisites
    WHERE url = ? AND sha256 IS NOT NULL AND fetched_at <= ? ORDER BY fetched_at DESC, id DESC LIMIT 1`, [url, when], 'requisiteAt');
  const after = yield* row(keptRow, `SELECT id, fetched_at AS "fetchedAt", content_type AS "contentType", sha256 FROM requisites
    WHERE url = ? AND sha256 IS NOT NULL AND fetched_at > ? ORDER BY fetched_at, id LIMIT 1`, [url, when], 'requisiteAt');
  const distance = (found: { fetchedAt: string }) => Math.abs(Date.parse(found.fetchedAt) - at.getTime());
  const chosen = before && after ? (distance(after) < distance(before) ? after : before) : before ?? after;
  if (!chosen) return null;
  const body = yield* getBlob(chosen.sha256);
  return body ? { url, fetchedAt: chosen.fetchedAt, contentType: chosen.contentType, body } : null;
}

/**
 * `forest check`'s look at requisites' bytes (issue #67): each distinct body a requisite names is
 * there and hashes to its name. The codec must be loaded (zstd bodies are decoded).
 */
export function* requisiteDigestProblems(): Steps<string[]> {
  const problems: string[] = [];
  for (const hash of yield* values(text, 'SELECT DISTINCT sha256 FROM requisites WHERE sha256 IS NOT NULL ORDER BY sha256', [], 'requisiteDigestProblems')) {
    const body = yield* getBlob(hash);
    if (!body) problems.push(`requisite body ${hash} is missing`);
    else if (sha256(body) !== hash) problems.push(`requisite body ${hash} hashes to ${sha256(body)}: its bytes changed since they were stored`);
  }
  return problems;
}

/**
 * Retention of requisites (`forest vacuum`, the daemon's daily pass): a requisite is kept while a
 * capture with a body lists it. Those of captures whose body is gone (found unchanged before
 * dropCaptureBody dropped their requisites too) are dropped, and their bytes with them when no
 * other capture uses them. Returns how many were dropped.
 */
export function* dropUnusedRequisites(): Steps<number> {
  const bodiless = 'snapshot_id IN (SELECT id FROM snapshots WHERE sha256 IS NULL)';
  const hashes = yield* values(text, `SELECT DISTINCT sha256 FROM requisites WHERE ${bodiless} AND sha256 IS NOT NULL`, [], 'dropUnusedRequisites');
  const dropped = yield* run(`DELETE FROM requisites WHERE ${bodiless}`, []);
  for (const hash of hashes) yield* deleteUnusedBlob(hash);
  return dropped;
}

const requisiteSettings = z.array(z.enum(['images', 'styles', 'media'])) satisfies z.ZodType<RequisiteSetting[]>;

/** The feed's own choice of requisite kinds (the list's `requisites`, migration 0024) as stored; null when it follows the settings. */
export const feedRequisites = (stored: string | null, where: string): RequisiteSetting[] | null => (stored === null ? null : json(requisiteSettings, stored, where));

/** The requisite kinds a capture's feed chose for its pages, or null when it follows capture.requisites.kinds. */
export function* requisiteKindsOf(snapshotId: number): Steps<RequisiteSetting[] | null> {
  const stored = yield* value(nullableText, `SELECT feeds.requisites FROM snapshots JOIN items ON items.id = snapshots.item_id JOIN feeds ON feeds.id = items.feed_id
    WHERE snapshots.id = ?`, [snapshotId], 'requisiteKindsOf');
  return feedRequisites(stored ?? null, `the requisites of the feed of capture ${snapshotId}`);
}
