import { z } from 'zod';
import { decodeStoredBody, type EncodedBody, type ReferenceBody, type StoredBody } from '../codec.js';
import { referenceHost } from '../blobs.js';
import type { ExtractionPriority } from '../queues.js';
import { checkedRow, nullableText, text } from '../rows.js';
import type { PayloadDigest } from '../snapshots.js';
import type { FetchedPage } from '../store.js';
import type { Sql } from './database.js';

/** Captures and their bodies on PostgreSQL (as snapshots.ts and blobs.ts on SQLite). */

const blob = z.object({
  sha256: text, encoding: text, data: z.instanceof(Uint8Array), reference: nullableText,
  reference_encoding: nullableText, reference_data: z.instanceof(Uint8Array).nullable(),
});
/** A body with the body it was stored against, in one query (every capture and extraction reads one). */
const BLOB_WITH_REFERENCE = `body.sha256, body.encoding, body.data, body.reference, reference.encoding AS reference_encoding, reference.data AS reference_data
  FROM blobs AS body LEFT JOIN blobs AS reference ON reference.sha256 = body.reference`;

const storedOf = (row: z.infer<typeof blob>): StoredBody => ({
  encoding: row.encoding, data: row.data,
  reference: row.reference_encoding !== null && row.reference_data !== null ? { encoding: row.reference_encoding, data: row.reference_data } : null,
});

export async function storedBlob(sql: Sql, hash: string): Promise<StoredBody | null> {
  const row = checkedRow(blob, await sql.get(`SELECT ${BLOB_WITH_REFERENCE} WHERE body.sha256 = ?`, [hash]), 'storedBlob');
  return row ? storedOf(row) : null;
}

export async function getBlob(sql: Sql, hash: string): Promise<Buffer | null> {
  const stored = await storedBlob(sql, hash);
  return stored ? decodeStoredBody(stored) : null;
}

export async function captureReferenceOf(sql: Sql, url: string): Promise<ReferenceBody | null> {
  const host = referenceHost(url);
  if (host === null) return null;
  const row = checkedRow(blob, await sql.get(`SELECT ${BLOB_WITH_REFERENCE}
    JOIN capture_references ON capture_references.sha256 = body.sha256 WHERE capture_references.host = ?`, [host]), 'captureReferenceOf');
  return row ? { sha256: row.sha256, stored: storedOf(row) } : null;
}

export async function queueExtraction(sql: Sql, snapshotId: number, at: string, priority: ExtractionPriority): Promise<void> {
  await sql.run('INSERT INTO extraction_queue (snapshot_id, queued_at, priority) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [snapshotId, at, priority === 'first' ? 0 : 1]);
}

/** Stores one capture, its body once per sha256, or only the body's digest; a 2xx page with a body is queued for extraction. */
export async function insertSnapshot(sql: Sql, itemId: number, page: FetchedPage, body: EncodedBody | PayloadDigest | null, extract: ExtractionPriority | null): Promise<number> {
  if (body !== null && 'digest' in body) return insertSnapshotRow(sql, itemId, page, null, body.digest);
  let hash: string | null = null;
  if (body && body.size > 0) {
    await sql.run('INSERT INTO blobs (sha256, size, encoding, data, reference) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING',
      [body.sha256, body.size, body.encoding, Buffer.from(body.data.buffer, body.data.byteOffset, body.data.byteLength), body.reference]);
    hash = body.sha256;
  }
  if (hash !== null && body!.reference === null && extract === 'first' && page.status >= 200 && page.status < 300) {
    // A new item's page stored alone becomes its site's reference (codec.ts).
    const host = referenceHost(page.finalUrl);
    if (host !== null) {
      await sql.run(`INSERT INTO capture_references (host, sha256) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM blobs WHERE sha256 = ? AND reference IS NULL)
        ON CONFLICT (host) DO UPDATE SET sha256 = excluded.sha256`, [host, hash, hash]);
    }
  }
  const id = await insertSnapshotRow(sql, itemId, page, hash, hash);
  if (extract !== null && hash !== null && page.status >= 200 && page.status < 300) await queueExtraction(sql, id, page.fetchedAt.toISOString(), extract);
  return id;
}

async function insertSnapshotRow(sql: Sql, itemId: number, page: FetchedPage, hash: string | null, digest: string | null): Promise<number> {
  const id = (await sql.column(`INSERT INTO snapshots (item_id, url, final_url, canonical_url, fetched_at, duration_ms, status, headers, content_type, sha256, payload_digest)
    VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, [itemId, page.url, page.finalUrl, page.fetchedAt.toISOString(), Math.round(page.durationMs),
    page.status, JSON.stringify(page.headers), page.contentType, hash, digest]))[0];
  return Number(id);
}

export async function recordCapture(sql: Sql, itemId: number, page: FetchedPage, body: EncodedBody | null): Promise<number> {
  const id = await insertSnapshot(sql, itemId, page, body, 'first');
  await sql.run(`UPDATE items SET page_state = 'captured', page_attempts = page_attempts + 1, page_error = NULL, page_due_at = NULL WHERE id = ?`, [itemId]);
  return id;
}

export async function recordCaptureFailure(sql: Sql, itemId: number, error: string, retryAt: Date, maxAttempts: number): Promise<void> {
  await sql.run(`UPDATE items SET page_attempts = page_attempts + 1, page_error = ?,
      page_state = CASE WHEN page_attempts + 1 >= ?::integer THEN 'failed' ELSE 'pending' END, page_due_at = ? WHERE id = ?`, [error, maxAttempts, retryAt.toISOString(), itemId]);
}

export async function setCanonicalUrl(sql: Sql, snapshotId: number, url: string | null): Promise<void> {
  if (url !== null) await sql.run('UPDATE snapshots SET canonical_url = ? WHERE id = ?', [url, snapshotId]);
}

export async function latestPayloadDigest(sql: Sql, itemId: number): Promise<string | null> {
  return checkedRow(nullableText, (await sql.column('SELECT payload_digest FROM snapshots WHERE item_id = ? ORDER BY id DESC LIMIT 1', [itemId]))[0], 'latestPayloadDigest') ?? null;
}

/** Drops the body of a capture whose article object was unchanged (the digest stays), and the bytes unless anything else uses them. */
export async function dropCaptureBody(sql: Sql, snapshotId: number): Promise<void> {
  const hash = checkedRow(nullableText, (await sql.column('SELECT sha256 FROM snapshots WHERE id = ?', [snapshotId]))[0], 'dropCaptureBody');
  if (!hash) return;
  await sql.run('UPDATE snapshots SET sha256 = NULL WHERE id = ?', [snapshotId]);
  await sql.run(`DELETE FROM blobs WHERE sha256 = @hash
    AND NOT EXISTS (SELECT 1 FROM snapshots WHERE sha256 = @hash)
    AND NOT EXISTS (SELECT 1 FROM blobs AS dependent WHERE dependent.reference = @hash)
    AND NOT EXISTS (SELECT 1 FROM capture_references WHERE sha256 = @hash)`, { hash });
}
