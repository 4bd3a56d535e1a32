import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Db } from './database.js';

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Stores `bytes` once per sha256 (gzip-compressed) and returns the hash. */
export function putBlob(db: Db, bytes: Buffer): string {
  const hash = sha256(bytes);
  const exists = db.prepare('SELECT 1 FROM blobs WHERE sha256 = ?').get(hash);
  if (!exists) {
    db.prepare('INSERT INTO blobs (sha256, size, encoding, data) VALUES (?, ?, ?, ?)').run(hash, bytes.length, 'gzip', gzipSync(bytes));
  }
  return hash;
}

export function getBlob(db: Db, hash: string): Buffer | null {
  const row = db.prepare('SELECT encoding, data FROM blobs WHERE sha256 = ?').get(hash) as { encoding: string; data: Buffer } | undefined;
  if (!row) return null;
  return row.encoding === 'gzip' ? gunzipSync(row.data) : row.data;
}
