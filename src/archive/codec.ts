import { compress, compressUsingDict, createCCtx, createDCtx, decompress, decompressUsingDict, init } from '@bokuweb/zstd-wasm';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';

/**
 * How page bodies are stored (pure once loaded: runs in the worker pool). A body is addressed by
 * the sha256 of its bytes and stored compressed with zstd.
 *
 * Pages of one site share most of their bytes — the template: head, navigation, footer, scripts.
 * One compressed stream per page stores that template again with every page. zstd can compress
 * against a dictionary, and any earlier page of the same site is a good one (a "raw content"
 * dictionary: the template's bytes themselves). So each site (host) keeps a *reference* capture,
 * stored on its own; every later capture from the site is stored against the reference while
 * that saves a good share (REFERENCE_FITS). When it does not, the reference no longer fits the
 * site's pages (a redesign, a section with its own layout): the capture is stored alone and
 * becomes the new reference. A reference is always stored alone, so decoding needs at most one other body.
 * Measured on the 427 same-template pages of ../shared/datasets: gzip 15.2 KB a page, zstd with the
 * site's first page as the dictionary 6.6 KB (`npm run bench:scale` reports it on its own run).
 *
 * zstd runs as WebAssembly (@bokuweb/zstd-wasm): no native build, the same in every thread.
 * `loadCodec()` must have resolved before a zstd body is encoded or decoded.
 */

/**
 * zstd level 3 (zstd's default). Against a dictionary, each compression first loads the
 * dictionary (a whole page) into the level's match finder, so a higher level costs on the
 * dictionary as well as on the page: on the 427
 * pages above, level 6 took 0.93 ms a page and stored 6.04 KB, level 3 0.26 ms and 6.61 KB (+9%).
 * A capture is compressed once, in the pool, while the archive's size is dominated by the text
 * and versions around it (bench:scale: ~4 KB of ~21 KB per article).
 */
const LEVEL = 3;
/**
 * A reference fits while compressing against it saves at least a fifth. Against its own
 * template a page shrinks by more than half (6.6 against 15.7 KB alone at level 3). When it saves less,
 * the page is stored alone and becomes the reference: one capture stored alone pays for itself
 * with the next. (After a redesign only shared boilerplate matches, and the saving falls far below.)
 */
const REFERENCE_FITS = 0.8;

export interface EncodedBody {
  sha256: string;
  size: number;
  /** `zstd` alone, or `zstd-dict` against `reference`; `identity` for bytes compressed already (a requisite's image or video). */
  encoding: 'zstd' | 'zstd-dict' | 'identity';
  data: Uint8Array;
  /** The sha256 of the body this one was compressed against, or null. */
  reference: string | null;
}

export interface StoredBody {
  /** gzip and identity (bodies stored before zstd), zstd, zstd-dict. */
  encoding: string;
  data: Uint8Array;
  /** For zstd-dict: the stored body of the reference (itself stored alone). */
  reference?: StoredBody | null;
}

/** A site's reference capture, as a capture is compressed against it. */
export interface ReferenceBody {
  sha256: string;
  stored: StoredBody;
}

let loading: Promise<void> | null = null;
let contexts: { compress: number; decompress: number } | null = null;

/** Loads zstd (WebAssembly) in this thread; resolves at once when it is loaded. */
export function loadCodec(): Promise<void> {
  loading ??= init().then(() => {
    contexts = { compress: createCCtx(), decompress: createDCtx() };
  });
  return loading;
}

function zstd(): { compress: number; decompress: number } {
  if (!contexts) throw new Error('the zstd codec is not loaded in this thread (await loadCodec() first)');
  return contexts;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Decoded references, by sha256: a site's captures are compressed against the same reference one
 * after another, and decoding it for each costs as much as a small page's compression.
 */
const decodedReferences = new Map<string, Buffer>();
const DECODED_REFERENCES = 16;

function referenceBytes(reference: ReferenceBody): Buffer {
  let bytes = decodedReferences.get(reference.sha256);
  if (!bytes) {
    bytes = decodeStoredBody(reference.stored);
    if (decodedReferences.size >= DECODED_REFERENCES) decodedReferences.delete(decodedReferences.keys().next().value!);
    decodedReferences.set(reference.sha256, bytes);
  }
  return bytes;
}

/**
 * `bytes` in the smaller of its encodings: alone, or against `reference` when there is one.
 * Compressing alone as well, only to compare, would double the work of every capture; a page
 * compresses alone about as well as its site's reference did (the reference is stored alone, so
 * its ratio is known), so the page is compressed alone only when the estimate says the reference
 * may not fit.
 */
export function encodeBody(bytes: Uint8Array, reference: ReferenceBody | null = null): EncodedBody {
  const base = { sha256: sha256(bytes), size: bytes.byteLength };
  if (reference && reference.sha256 !== base.sha256) {
    const dictionary = referenceBytes(reference);
    const against = compressUsingDict(zstd().compress, bytes, dictionary, LEVEL);
    // The estimate holds for a reference zstd compressed alone at this level (older ones were gzip or identity).
    const estimatedAlone = reference.stored.encoding === 'zstd' ? bytes.byteLength * (reference.stored.data.byteLength / Math.max(1, dictionary.byteLength)) : 0;
    if (against.byteLength <= estimatedAlone * REFERENCE_FITS) return { ...base, encoding: 'zstd-dict', data: against, reference: reference.sha256 };
    const alone = compress(bytes, LEVEL);
    if (against.byteLength <= alone.byteLength * REFERENCE_FITS) return { ...base, encoding: 'zstd-dict', data: against, reference: reference.sha256 };
    return { ...base, encoding: 'zstd', data: alone, reference: null };
  }
  return { ...base, encoding: 'zstd', data: compress(bytes, LEVEL), reference: null };
}

/**
 * A requisite's bytes as stored (issue #67): text and fonts compressed alone (a stylesheet has no
 * reference to be compressed against: it is stored once for every page that uses it), bytes that
 * are compressed already (JPEG, PNG, WebP, video) as they are — compressing them again costs CPU
 * and saves nothing.
 */
export function encodeRequisite(bytes: Uint8Array, compressible: boolean): EncodedBody {
  const base = { sha256: sha256(bytes), size: bytes.byteLength, reference: null };
  return compressible ? { ...base, encoding: 'zstd', data: compress(bytes, LEVEL) } : { ...base, encoding: 'identity', data: bytes };
}

export function decodeStoredBody(body: StoredBody): Buffer {
  switch (body.encoding) {
    case 'zstd':
      zstd();
      return Buffer.from(decompress(body.data));
    case 'zstd-dict': {
      if (!body.reference) throw new Error('a zstd-dict body without its reference');
      if (body.reference.encoding === 'zstd-dict') throw new Error('a reference body must be stored alone');
      return Buffer.from(decompressUsingDict(zstd().decompress, body.data, decodeStoredBody(body.reference)));
    }
    case 'gzip':
      return gunzipSync(body.data);
    case 'identity':
      return Buffer.from(body.data);
    default:
      throw new Error(`unknown body encoding ${body.encoding}`);
  }
}
