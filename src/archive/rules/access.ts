import { z } from 'zod';
import { integer, nullableText, text } from '../rows.js';
import { row, rows, type Steps } from '../steps.js';
import { getBlob } from './captures.js';

/**
 * The archive as the web reads it beyond articles, on either engine: the change feed's rows,
 * Memento's captures of an original URL (RFC 7089) and one capture's bytes, a feed's wrappers.
 * Each query walks an index (migrations 0010, 0021; postgres/0003).
 */

export const changeRow = z.object({
  articleId: integer,
  n: integer,
  capturedAt: text,
  title: nullableText,
  url: text,
  change: text,
  summary: nullableText,
  diff: nullableText,
  feed: text,
  feedTitle: nullableText,
});
export type ChangeRow = z.infer<typeof changeRow>;

export const wrapperRow = z.object({
  id: integer,
  templateId: integer,
  xpath: text,
  samples: integer,
  learnedAt: text,
  active: integer,
  reason: text,
});
export type WrapperRow = z.infer<typeof wrapperRow>;

/** A feed's wrappers, the active ones first, then newest first (the wrappers_template index per template; a feed has a few). */
export function wrappersOfFeed(feedId: number, limit: number): Steps<WrapperRow[]> {
  return rows(wrapperRow, `SELECT wrappers.id, wrappers.template_id AS "templateId", wrappers.xpath, wrappers.samples, wrappers.learned_at AS "learnedAt", wrappers.active, wrappers.reason
    FROM templates JOIN wrappers ON wrappers.template_id = templates.id WHERE templates.feed_id = ?
    ORDER BY wrappers.active DESC, wrappers.id DESC LIMIT ?`, [feedId, limit], 'wrappersOfFeed');
}

export const captureRow = z.object({
  snapshotId: integer,
  fetchedAt: text,
  status: integer,
  canonicalUrl: nullableText,
});
export type CaptureRow = z.infer<typeof captureRow>;

/**
 * The captures that can be replayed (their bytes are kept) of `url`: those Forest requested at
 * `url` or whose redirects ended there — what Forest fetched, never what a page claims (its
 * canonical link is kept beside, as its claim) — oldest first.
 */
export function capturesOfUrl(url: string): Steps<CaptureRow[]> {
  return rows(captureRow, CAPTURES_OF_URL, { url }, 'capturesOfUrl');
}

/** An index lookup on each of the two columns (migrations 0021, postgres/0003). */
const CAPTURES_OF_URL = `SELECT id AS "snapshotId", fetched_at AS "fetchedAt", status, canonical_url AS "canonicalUrl" FROM snapshots WHERE sha256 IS NOT NULL AND url = @url
  UNION SELECT id, fetched_at, status, canonical_url FROM snapshots WHERE sha256 IS NOT NULL AND final_url = @url
  ORDER BY "fetchedAt", "snapshotId"`;

export interface CaptureContent {
  url: string;
  finalUrl: string;
  fetchedAt: string;
  status: number;
  /** JSON object of the response headers as stored. */
  headers: string;
  contentType: string | null;
  body: Buffer;
}

const captureHead = z.object({ url: text, finalUrl: text, fetchedAt: text, status: integer, headers: text, contentType: nullableText, sha256: nullableText });

/** One capture with its bytes (decoded here: zstd must be loaded on this thread), or null. */
export function* captureContent(snapshotId: number): Steps<CaptureContent | null> {
  const head = yield* row(captureHead, `SELECT url, final_url AS "finalUrl", fetched_at AS "fetchedAt", status, headers, content_type AS "contentType", sha256
    FROM snapshots WHERE id = ?`, [snapshotId], 'captureContent');
  if (!head || head.sha256 === null) return null;
  const body = yield* getBlob(head.sha256);
  if (!body) return null;
  const { sha256: _sha256, ...capture } = head;
  return { ...capture, body };
}
