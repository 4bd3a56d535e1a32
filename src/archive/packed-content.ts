import { gunzipSync, gzipSync } from 'node:zlib';
import type { NormalizedObject } from './normalize.js';

/**
 * A version's sanitized HTML and its normalized object (JSON) in one compressed value, the way
 * `contents.packed` keeps them (migration 0015). Together, because the object's blocks repeat the
 * HTML's text: one stream finds those repeats, two would store them twice. gzip (node's zlib):
 * on bench:scale's archive 10.8 KB became 2.7 KB a version at 0.2 ms, against 2.5–2.6 KB for
 * brotli at two to three times the time, and it needs no loading step in any thread (the
 * captures' zstd does). Layout: the HTML's length in bytes (uint32, little-endian), the HTML,
 * the object's JSON — all UTF-8.
 */

export interface UnpackedContent {
  html: string;
  /** The normalized object, as JSON. */
  blocks: string;
}

export function packContent(html: string, object: NormalizedObject): Buffer {
  const markup = Buffer.from(html, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(markup.byteLength);
  return gzipSync(Buffer.concat([length, markup, Buffer.from(JSON.stringify(object), 'utf8')]));
}

export function unpackContent(packed: Uint8Array): UnpackedContent {
  const bytes = gunzipSync(packed);
  if (bytes.byteLength < 4) throw new Error('packed content: shorter than its header');
  const length = bytes.readUInt32LE(0);
  if (4 + length > bytes.byteLength) throw new Error(`packed content: its HTML (${length} bytes) runs past its end (${bytes.byteLength - 4})`);
  return { html: bytes.toString('utf8', 4, 4 + length), blocks: bytes.toString('utf8', 4 + length) };
}
