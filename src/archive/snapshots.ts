import type { FetchResult } from '../net/fetcher.js';
import { putEncodedBlob } from './blobs.js';
import type { EncodedBody } from './codec.js';
import type { Db } from './database.js';
import { queueExtraction } from './queues.js';

/** A fetched response as stored: everything but the body, which comes hashed and compressed. */
export type FetchedPage = Omit<FetchResult, 'body'>;

/**
 * Stores one raw capture, its body once per sha256 (a byte-identical revisit costs a row, not a
 * page). A 2xx page with a body is queued for extraction unless `extract` is false.
 */
export function insertSnapshot(db: Db, itemId: number, page: FetchedPage, body: EncodedBody | null, extract = true): number {
  const hash = body && body.size > 0 ? putEncodedBlob(db, body) : null;
  const { lastInsertRowid } = db.prepare(`INSERT INTO snapshots (item_id, url, final_url, canonical_url, fetched_at, duration_ms, status, headers, content_type, sha256)
    VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)`).run(itemId, page.url, page.finalUrl, page.fetchedAt.toISOString(), page.durationMs,
    page.status, JSON.stringify(page.headers), page.contentType, hash);
  const id = Number(lastInsertRowid);
  if (extract && hash !== null && page.status >= 200 && page.status < 300) queueExtraction(db, id, page.fetchedAt.toISOString());
  return id;
}

/** Stores an item's first capture and marks its item captured, atomically. */
export function recordCapture(db: Db, itemId: number, page: FetchedPage, body: EncodedBody | null): number {
  return db.transaction(() => {
    const id = insertSnapshot(db, itemId, page, body);
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

/** The payload digest of the latest capture of an item's page. */
export function latestPayloadDigest(db: Db, itemId: number): string | null {
  return (db.prepare('SELECT sha256 FROM snapshots WHERE item_id = ? ORDER BY id DESC LIMIT 1').pluck().get(itemId) as string | null | undefined) ?? null;
}
