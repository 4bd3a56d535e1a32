import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * How page bodies are stored (pure: runs in the worker pool). A body is addressed by the sha256
 * of its bytes and stored compressed.
 */

export interface EncodedBody {
  sha256: string;
  size: number;
  encoding: 'gzip';
  data: Uint8Array;
}

export interface StoredBody {
  encoding: string;
  data: Uint8Array;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export function encodeBody(bytes: Uint8Array): EncodedBody {
  return { sha256: sha256(bytes), size: bytes.byteLength, encoding: 'gzip', data: gzipSync(bytes) };
}

export function decodeStoredBody(body: StoredBody): Buffer {
  if (body.encoding === 'gzip') return gunzipSync(body.data);
  if (body.encoding === 'identity') return Buffer.from(body.data);
  throw new Error(`unknown body encoding ${body.encoding}`);
}
