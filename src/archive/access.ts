import { getBlob } from './rules/captures.js';
import { runOn } from './sqlite-sql.js';
import { z } from 'zod';
import type { Db } from './database.js';
import { checkedRow, checkedRows, integer, nullableText, text } from './rows.js';

/**
 * The archive as the web reads it beyond articles: the change feed (edits, newest first) and
 * Memento's captures of an original URL (RFC 7089). Each query walks an index (migration 0010).
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

/** Versions after the first (edits found by a revisit), newest first, of a feed or a tag. */
export function recentChanges(db: Db, filter: { feed?: string | undefined; tag?: string | undefined }, limit: number): ChangeRow[] {
  return checkedRows(changeRow, db.prepare(`SELECT versions.article_id AS articleId, versions.n, versions.captured_at AS capturedAt, contents.title, articles.url, versions.change,
      versions.summary, versions.diff, feeds.subscribed_url AS feed, COALESCE(feeds.title, feeds.feed_title) AS feedTitle
    FROM versions INDEXED BY versions_edits JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id
      JOIN contents ON contents.hash = versions.hash
    WHERE versions.n > 1 AND (@feed IS NULL OR feeds.url = @feed OR feeds.subscribed_url = @feed)
      AND (@tag IS NULL OR EXISTS (SELECT 1 FROM json_each(feeds.tags) WHERE json_each.value = @tag))
    ORDER BY versions.captured_at DESC LIMIT @limit`).all({ feed: filter.feed ?? null, tag: filter.tag ?? null, limit }), 'recentChanges');
}

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
export function wrappersOfFeed(db: Db, feedId: number, limit: number): WrapperRow[] {
  return checkedRows(wrapperRow, db.prepare(`SELECT wrappers.id, wrappers.template_id AS templateId, wrappers.xpath, wrappers.samples, wrappers.learned_at AS learnedAt, wrappers.active, wrappers.reason
    FROM templates JOIN wrappers ON wrappers.template_id = templates.id WHERE templates.feed_id = ?
    ORDER BY wrappers.active DESC, wrappers.id DESC LIMIT ?`).all(feedId, limit), 'wrappersOfFeed');
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
export function capturesOfUrl(db: Db, url: string): CaptureRow[] {
  return checkedRows(captureRow, db.prepare(CAPTURES_OF_URL).all({ url }), 'capturesOfUrl');
}

/** capturesOfUrl's query, the same on both engines: an index lookup on each of the two columns (migrations 0021, postgres/0003). */
export const CAPTURES_OF_URL = `SELECT id AS "snapshotId", fetched_at AS "fetchedAt", status, canonical_url AS "canonicalUrl" FROM snapshots WHERE sha256 IS NOT NULL AND url = @url
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
export function captureContent(db: Db, snapshotId: number): CaptureContent | null {
  const row = checkedRow(captureHead, db.prepare(`SELECT url, final_url AS finalUrl, fetched_at AS fetchedAt, status, headers, content_type AS contentType, sha256
    FROM snapshots WHERE id = ?`).get(snapshotId), 'captureContent');
  if (!row || row.sha256 === null) return null;
  const body = runOn(db, getBlob(row.sha256));
  if (!body) return null;
  const { sha256: _sha256, ...capture } = row;
  return { ...capture, body };
}
