import { z } from 'zod';
import { decodeStoredBody, type EncodedBody, type ReferenceBody, type StoredBody } from '../codec.js';
import { integer, nullableText, text } from '../rows.js';
import { inserted, row, run, value, values, type Steps } from '../steps.js';
import type { FetchedPage } from '../store.js';

/**
 * Captures and their bodies, on either engine (steps.ts). A body is stored once per sha256 (a
 * byte-identical revisit costs a row, not a page), compressed against its site's reference
 * capture where that pays (codec.ts).
 */

/** A capture whose body is not kept (its article object was the one archived): only its payload's digest. */
export interface PayloadDigest {
  digest: string;
}

/** Which queue an extraction waits in: an item's first capture before any revisit. */
export type ExtractionPriority = 'first' | 'revisit';

const blob = z.object({
  sha256: text, encoding: text, data: z.instanceof(Uint8Array), reference: nullableText,
  reference_encoding: nullableText, reference_data: z.instanceof(Uint8Array).nullable(),
});
/**
 * A body with the body it was stored against, in one query (every capture and extraction reads
 * one); references are stored alone (codec.ts). Scalar subqueries, not a LEFT JOIN: each is a
 * primary-key lookup on both engines, where SQLite's planner may scan a joined blobs table.
 */
const REFERENCE_OF_BODY = `(SELECT reference.encoding FROM blobs AS reference WHERE reference.sha256 = body.reference) AS reference_encoding,
  (SELECT reference.data FROM blobs AS reference WHERE reference.sha256 = body.reference) AS reference_data`;
const BLOB_WITH_REFERENCE = `body.sha256, body.encoding, body.data, body.reference, ${REFERENCE_OF_BODY} FROM blobs AS body`;

const storedOf = (found: z.infer<typeof blob>): StoredBody => ({
  encoding: found.encoding, data: found.data,
  reference: found.reference_encoding !== null && found.reference_data !== null ? { encoding: found.reference_encoding, data: found.reference_data } : null,
});

/** A body as stored (still compressed), with the reference it needs: decoded where the CPU work belongs (the worker pool). */
export function* storedBlob(hash: string): Steps<StoredBody | null> {
  const found = yield* row(blob, `SELECT ${BLOB_WITH_REFERENCE} WHERE body.sha256 = ?`, [hash], 'storedBlob');
  return found ? storedOf(found) : null;
}

export function* getBlob(hash: string): Steps<Buffer | null> {
  const stored = yield* storedBlob(hash);
  return stored ? decodeStoredBody(stored) : null;
}

/** The site a capture's reference is kept for: the host of its final URL (null when it has none). */
export function referenceHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/** The capture a new capture of `url` is compressed against (see codec.ts), or null. */
export function* captureReferenceOf(url: string): Steps<ReferenceBody | null> {
  const host = referenceHost(url);
  if (host === null) return null;
  const found = yield* row(blob, `SELECT ${BLOB_WITH_REFERENCE}
    JOIN capture_references ON capture_references.sha256 = body.sha256 WHERE capture_references.host = ?`, [host], 'captureReferenceOf');
  return found ? { sha256: found.sha256, stored: storedOf(found) } : null;
}

/** Stores an encoded body once per sha256 and returns the hash. */
export function* putEncodedBlob(body: EncodedBody): Steps<string> {
  yield* run('INSERT INTO blobs (sha256, size, encoding, data, reference) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING',
    [body.sha256, body.size, body.encoding, body.data, body.reference]);
  return body.sha256;
}

/**
 * After a page from `host` is stored alone, it is the site's reference: it compressed better on
 * its own than against the old one, or there was none. (A body already stored under this hash
 * against another reference is not one: references are stored alone.)
 */
function* adoptCaptureReference(host: string | null, hash: string): Steps<void> {
  if (host === null) return;
  yield* run(`INSERT INTO capture_references (host, sha256) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM blobs WHERE sha256 = ? AND reference IS NULL)
    ON CONFLICT (host) DO UPDATE SET sha256 = excluded.sha256`, [host, hash, hash]);
}

/** Deletes a body nothing uses any more: no capture, no body compressed against it, no site's reference, no capture's requisite. */
export function* deleteUnusedBlob(hash: string): Steps<void> {
  yield* run(`DELETE FROM blobs WHERE sha256 = @hash
    AND NOT EXISTS (SELECT 1 FROM snapshots WHERE sha256 = @hash)
    AND NOT EXISTS (SELECT 1 FROM blobs AS dependent WHERE dependent.reference = @hash)
    AND NOT EXISTS (SELECT 1 FROM capture_references WHERE sha256 = @hash)
    AND NOT EXISTS (SELECT 1 FROM requisites WHERE sha256 = @hash)`, { hash });
}

export function* queueExtraction(snapshotId: number, at: string, priority: ExtractionPriority): Steps<void> {
  yield* run('INSERT INTO extraction_queue (snapshot_id, queued_at, priority) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [snapshotId, at, priority === 'first' ? 0 : 1]);
}

export function* dequeueExtraction(snapshotId: number): Steps<void> {
  yield* run('DELETE FROM extraction_queue WHERE snapshot_id = ?', [snapshotId]);
}

/**
 * A stored capture whose requisites are to be fetched (daemon/requisites.ts): queued in the
 * capture's transaction and taken off in the one that records them, so that a daemon killed
 * while captures wait for their requisites leaves them for the next one (issue #70, item 4).
 */
export function* queueRequisites(snapshotId: number, at: string): Steps<void> {
  yield* run('INSERT INTO requisite_queue (snapshot_id, queued_at) VALUES (?, ?) ON CONFLICT DO NOTHING', [snapshotId, at]);
}

export function* dequeueRequisites(snapshotId: number): Steps<void> {
  yield* run('DELETE FROM requisite_queue WHERE snapshot_id = ?', [snapshotId]);
}

/**
 * The oldest captures waiting for their requisites, at most `limit`. On a shared archive
 * (`claimsAt`: now), those another daemon holds a live claim on are passed over.
 */
export function queuedRequisites(limit: number, claimsAt: string | null): Steps<number[]> {
  const unclaimed = claimsAt === null ? '' : `WHERE NOT EXISTS (SELECT 1 FROM claims WHERE claims.kind = 'requisites' AND claims.id = requisite_queue.snapshot_id AND claims.expires_at >= ?)`;
  return values(integer, `SELECT snapshot_id FROM requisite_queue ${unclaimed} ORDER BY snapshot_id LIMIT ?`, claimsAt === null ? [limit] : [claimsAt, limit], 'queuedRequisites');
}

/**
 * Stores one raw capture, its body once per sha256, or only the body's digest. A 2xx page with a
 * body is queued for extraction, at `extract`'s priority (null: not).
 */
export function* insertSnapshot(itemId: number, page: FetchedPage, body: EncodedBody | PayloadDigest | null, extract: ExtractionPriority | null): Steps<number> {
  if (body !== null && 'digest' in body) return yield* insertSnapshotRow(itemId, page, null, body.digest);
  const hash = body && body.size > 0 ? yield* putEncodedBlob(body) : null;
  const ok = page.status >= 200 && page.status < 300;
  if (hash !== null && body!.reference === null && extract === 'first' && ok) {
    // A new item's page stored alone becomes its site's reference for the captures that follow
    // (codec.ts). Revisits do not: their bodies are dropped when the article did not change.
    yield* adoptCaptureReference(referenceHost(page.finalUrl), hash);
  }
  const id = yield* insertSnapshotRow(itemId, page, hash, hash);
  if (extract !== null && hash !== null && ok) yield* queueExtraction(id, page.fetchedAt.toISOString(), extract);
  return id;
}

function insertSnapshotRow(itemId: number, page: FetchedPage, hash: string | null, digest: string | null): Steps<number> {
  return inserted(`INSERT INTO snapshots (item_id, url, final_url, canonical_url, fetched_at, duration_ms, status, headers, content_type, sha256, payload_digest)
    VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, [itemId, page.url, page.finalUrl, page.fetchedAt.toISOString(), Math.round(page.durationMs),
    page.status, JSON.stringify(page.headers), page.contentType, hash, digest], 'insertSnapshot');
}

/**
 * Stores an item's first capture and marks its item captured (in the caller's transaction); with
 * `requisites`, a capture with a body is queued for its requisites.
 */
export function* recordCapture(itemId: number, page: FetchedPage, body: EncodedBody | null, requisites = false): Steps<number> {
  const id = yield* insertSnapshot(itemId, page, body, 'first');
  if (requisites && body !== null && body.size > 0) yield* queueRequisites(id, page.fetchedAt.toISOString());
  yield* run(`UPDATE items SET page_state = 'captured', page_attempts = page_attempts + 1, page_error = NULL, page_due_at = NULL WHERE id = ?`, [itemId]);
  return id;
}

/** A failed capture attempt: retried later, or given up after `maxAttempts`. */
export function* recordCaptureFailure(itemId: number, error: string, retryAt: Date, maxAttempts: number): Steps<void> {
  yield* run(`UPDATE items SET page_attempts = page_attempts + 1, page_error = ?,
      page_state = CASE WHEN page_attempts + 1 >= CAST(? AS INTEGER) THEN 'failed' ELSE 'pending' END, page_due_at = ? WHERE id = ?`,
  [error, maxAttempts, retryAt.toISOString(), itemId]);
}

/** The `<link rel=canonical>` of a snapshot, known once it is parsed (at extraction). */
export function* setCanonicalUrl(snapshotId: number, url: string | null): Steps<void> {
  if (url !== null) yield* run('UPDATE snapshots SET canonical_url = ? WHERE id = ?', [url, snapshotId]);
}

/** The payload digest of the latest capture of an item's page (kept when its body is not). */
export function* latestPayloadDigest(itemId: number): Steps<string | null> {
  return (yield* value(nullableText, 'SELECT payload_digest FROM snapshots WHERE item_id = ? ORDER BY id DESC LIMIT 1', [itemId], 'latestPayloadDigest')) ?? null;
}

/**
 * Drops the body of a capture whose article object was unchanged: the digest, headers and time
 * stay (the WARC export writes a revisit record), the bytes go unless another capture has them.
 */
export function* dropCaptureBody(snapshotId: number): Steps<void> {
  const hash = yield* value(nullableText, 'SELECT sha256 FROM snapshots WHERE id = ?', [snapshotId], 'dropCaptureBody');
  if (!hash) return;
  yield* run('UPDATE snapshots SET sha256 = NULL WHERE id = ?', [snapshotId]);
  yield* deleteUnusedBlob(hash);
  yield* dequeueRequisites(snapshotId);
  // Its requisites went with what they were for: no replay of this capture is left to need them.
  const kept = yield* values(text, 'SELECT DISTINCT sha256 FROM requisites WHERE snapshot_id = ? AND sha256 IS NOT NULL', [snapshotId], 'dropCaptureBody');
  yield* run('DELETE FROM requisites WHERE snapshot_id = ?', [snapshotId]);
  for (const requisite of kept) yield* deleteUnusedBlob(requisite);
}
