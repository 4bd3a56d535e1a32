import type { FetchResult } from '../net/fetcher.js';
import { putBlob } from './blobs.js';
import type { Db } from './database.js';

/** Stores one raw capture, its body once per sha256 (an unchanged revisit costs a row, not a page). */
export function insertSnapshot(db: Db, itemId: number, result: FetchResult, canonicalUrl: string | null): number {
  const hash = result.body.length > 0 ? putBlob(db, result.body) : null;
  const { lastInsertRowid } = db.prepare(`INSERT INTO snapshots (item_id, url, final_url, canonical_url, fetched_at, duration_ms, status, headers, content_type, sha256)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(itemId, result.url, result.finalUrl, canonicalUrl, result.fetchedAt.toISOString(), result.durationMs,
    result.status, JSON.stringify(result.headers), result.contentType, hash);
  return Number(lastInsertRowid);
}

/** Stores an item's first capture and marks its item captured, atomically. */
export function recordCapture(db: Db, itemId: number, result: FetchResult, canonicalUrl: string | null): number {
  return db.transaction(() => {
    const id = insertSnapshot(db, itemId, result, canonicalUrl);
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
