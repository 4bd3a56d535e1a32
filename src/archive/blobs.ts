import { decodeStoredBody, encodeBody, type EncodedBody, type ReferenceBody, type StoredBody } from './codec.js';
import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, nullableText, text } from './rows.js';

export { sha256 } from './codec.js';

/** Stores an encoded body once per sha256 and returns the hash. */
export function putEncodedBlob(db: Db, body: EncodedBody): string {
  db.prepare('INSERT INTO blobs (sha256, size, encoding, data, reference) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING')
    .run(body.sha256, body.size, body.encoding, body.data, body.reference);
  return body.sha256;
}

/** Stores `bytes` once per sha256 and returns the hash (encoding here: for callers off the hot path; the codec must be loaded). */
export function putBlob(db: Db, bytes: Buffer): string {
  return putEncodedBlob(db, encodeBody(bytes));
}

const blob = z.object({ encoding: text, data: z.instanceof(Uint8Array), reference: nullableText });

const blobRow = (db: Db, hash: string) => checkedRow(blob, db.prepare('SELECT encoding, data, reference FROM blobs WHERE sha256 = ?').get(hash), 'storedBlob');

/** A body as stored (still compressed), with the reference it needs: decoded where the CPU work belongs (the worker pool). */
export function storedBlob(db: Db, hash: string): StoredBody | null {
  const row = blobRow(db, hash);
  if (!row) return null;
  // References are stored alone (codec.ts): one more lookup at most.
  const reference = row.reference !== null ? blobRow(db, row.reference) : undefined;
  return { encoding: row.encoding, data: row.data, reference: reference ? { encoding: reference.encoding, data: reference.data } : null };
}

export function getBlob(db: Db, hash: string): Buffer | null {
  const stored = storedBlob(db, hash);
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

/** The capture a new capture from `host` is compressed against (see codec.ts), or null. */
export function captureReferenceOf(db: Db, host: string | null): ReferenceBody | null {
  if (host === null) return null;
  const hash = checkedRow(text, db.prepare('SELECT sha256 FROM capture_references WHERE host = ?').pluck().get(host), 'captureReferenceOf');
  if (!hash) return null;
  const stored = storedBlob(db, hash);
  return stored ? { sha256: hash, stored } : null;
}

/**
 * After a page from `host` is stored alone, it is the site's reference: it compressed better on
 * its own than against the old one, or there was none. (A body already stored under this hash
 * against another reference is not one: references are stored alone.)
 */
export function adoptCaptureReference(db: Db, host: string | null, hash: string): void {
  if (host === null) return;
  db.prepare(`INSERT INTO capture_references (host, sha256) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM blobs WHERE sha256 = ? AND reference IS NULL)
    ON CONFLICT (host) DO UPDATE SET sha256 = excluded.sha256`).run(host, hash, hash);
}

/** Deletes a body nothing uses any more: no capture, no body compressed against it, no site's reference. */
export function deleteUnusedBlob(db: Db, hash: string): void {
  db.prepare(`DELETE FROM blobs WHERE sha256 = ?
    AND NOT EXISTS (SELECT 1 FROM snapshots WHERE sha256 = ?)
    AND NOT EXISTS (SELECT 1 FROM blobs AS dependent WHERE dependent.reference = ?)
    AND NOT EXISTS (SELECT 1 FROM capture_references WHERE sha256 = ?)`).run(hash, hash, hash, hash);
}
