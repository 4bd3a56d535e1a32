import { decodeStoredBody, encodeBody, type EncodedBody, type StoredBody } from './codec.js';
import type { Db } from './database.js';

export { sha256 } from './codec.js';

/** Stores an encoded body once per sha256 and returns the hash. */
export function putEncodedBlob(db: Db, body: EncodedBody): string {
  db.prepare('INSERT INTO blobs (sha256, size, encoding, data) VALUES (?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING')
    .run(body.sha256, body.size, body.encoding, body.data);
  return body.sha256;
}

/** Stores `bytes` once per sha256 and returns the hash (encoding here: for callers off the hot path). */
export function putBlob(db: Db, bytes: Buffer): string {
  return putEncodedBlob(db, encodeBody(bytes));
}

/** A body as stored (still compressed): decoded where the CPU work belongs (the worker pool). */
export function storedBlob(db: Db, hash: string): StoredBody | null {
  return (db.prepare('SELECT encoding, data FROM blobs WHERE sha256 = ?').get(hash) as StoredBody | undefined) ?? null;
}

export function getBlob(db: Db, hash: string): Buffer | null {
  const stored = storedBlob(db, hash);
  return stored ? decodeStoredBody(stored) : null;
}
