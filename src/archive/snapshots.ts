import { adoptCaptureReference, deleteUnusedBlob, putEncodedBlob, referenceHost } from './blobs.js';
import type { EncodedBody } from './codec.js';
import type { Db } from './database.js';
import { checkedRow, nullableText } from './rows.js';
import { queueExtraction, type ExtractionPriority } from './queues.js';
import type { FetchedPage } from './store.js';

/** A capture whose body is not kept (its article object was the one archived): only its payload's digest. */
export interface PayloadDigest {
  digest: string;
}

/**
 * Stores one raw capture, its body once per sha256 (a byte-identical revisit costs a row, not a
 * page), or only the body's digest. A 2xx page with a body is queued for extraction, at
 * `extract`'s priority (null: not).
 */
export function insertSnapshot(db: Db, itemId: number, page: FetchedPage, body: EncodedBody | PayloadDigest | null, extract: ExtractionPriority | null): number {
  if (body !== null && 'digest' in body) return insertSnapshotRow(db, itemId, page, null, body.digest);
  const hash = body && body.size > 0 ? putEncodedBlob(db, body) : null;
  if (hash !== null && body!.reference === null && extract === 'first' && page.status >= 200 && page.status < 300) {
    // A new item's page stored alone becomes its site's reference for the captures that follow
    // (codec.ts). Revisits do not: their bodies are dropped when the article did not change.
    adoptCaptureReference(db, referenceHost(page.finalUrl), hash);
  }
  const id = insertSnapshotRow(db, itemId, page, hash, hash);
  if (extract !== null && hash !== null && page.status >= 200 && page.status < 300) queueExtraction(db, id, page.fetchedAt.toISOString(), extract);
  return id;
}

function insertSnapshotRow(db: Db, itemId: number, page: FetchedPage, hash: string | null, digest: string | null): number {
  const { lastInsertRowid } = db.prepare(`INSERT INTO snapshots (item_id, url, final_url, canonical_url, fetched_at, duration_ms, status, headers, content_type, sha256, payload_digest)
    VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)`).run(itemId, page.url, page.finalUrl, page.fetchedAt.toISOString(), page.durationMs,
    page.status, JSON.stringify(page.headers), page.contentType, hash, digest);
  return Number(lastInsertRowid);
}

/** Stores an item's first capture and marks its item captured, atomically. */
export function recordCapture(db: Db, itemId: number, page: FetchedPage, body: EncodedBody | null): number {
  return db.transaction(() => {
    const id = insertSnapshot(db, itemId, page, body, 'first');
    db.prepare(`UPDATE items SET page_state = 'captured', page_attempts = page_attempts + 1, page_error = NULL, page_due_at = NULL WHERE id = ?`).run(itemId);
    return id;
  })();
}

/** A failed capture attempt: retried later, or given up after `maxAttempts`. */
export function recordCaptureFailure(db: Db, itemId: number, error: string, retryAt: Date, maxAttempts: number): void {
  db.prepare(`UPDATE items SET page_attempts = page_attempts + 1, page_error = ?,
      page_state = CASE WHEN page_attempts + 1 >= ? THEN 'failed' ELSE 'pending' END, page_due_at = ? WHERE id = ?`)
    .run(error, maxAttempts, retryAt.toISOString(), itemId);
}

/** The `<link rel=canonical>` of a snapshot, known once it is parsed (at extraction). */
export function setCanonicalUrl(db: Db, snapshotId: number, url: string | null): void {
  if (url !== null) db.prepare('UPDATE snapshots SET canonical_url = ? WHERE id = ?').run(url, snapshotId);
}

/** The payload digest of the latest capture of an item's page (kept when its body is not). */
export function latestPayloadDigest(db: Db, itemId: number): string | null {
  return checkedRow(nullableText, db.prepare('SELECT payload_digest FROM snapshots WHERE item_id = ? ORDER BY id DESC LIMIT 1').pluck().get(itemId), 'latestPayloadDigest') ?? null;
}

/**
 * Drops the body of a capture whose article object was unchanged: the digest, headers and time
 * stay (the WARC export writes a revisit record), the bytes go unless another capture has them.
 */
export function dropCaptureBody(db: Db, snapshotId: number): void {
  const hash = checkedRow(nullableText, db.prepare('SELECT sha256 FROM snapshots WHERE id = ?').pluck().get(snapshotId), 'dropCaptureBody');
  if (!hash) return;
  db.prepare('UPDATE snapshots SET sha256 = NULL WHERE id = ?').run(snapshotId);
  deleteUnusedBlob(db, hash);
}
