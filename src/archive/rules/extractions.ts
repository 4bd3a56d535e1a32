import { z } from 'zod';
import type { ArticleObject } from '../../extract/extract.js';
import type { Wrapper } from '../../extract/wrapper.js';
import { integer, nullableInteger, nullableText, text, count } from '../rows.js';
import { exists, inserted, row, rows, run, value, type Steps } from '../steps.js';
import { dequeueExtraction } from './captures.js';

/** Templates, their wrappers and each capture's extraction, on either engine (steps.ts). */

export const pendingSnapshot = z.object({
  snapshot_id: integer,
  item_id: integer,
  feed_id: integer,
  /** The URL requested (the item's link) and the one redirects led to. */
  url: text,
  final_url: text,
  canonical_url: nullableText,
  fetched_at: text,
  status: integer,
  /** JSON object of the response headers. */
  headers: text,
  content_type: nullableText,
  /** Null for a revisit that kept the payload's digest, not its bytes. */
  sha256: nullableText,
  title: nullableText,
  summary: nullableText,
  published: nullableText,
  updated: nullableText,
  author: nullableText,
});
export type PendingSnapshot = z.infer<typeof pendingSnapshot>;

/** The columns of a PendingSnapshot, from snapshots joined with items. */
export const SNAPSHOT_COLUMNS = `snapshots.id AS snapshot_id, snapshots.item_id, items.feed_id, snapshots.url, snapshots.final_url, snapshots.canonical_url,
  snapshots.fetched_at, snapshots.status, snapshots.headers, snapshots.content_type, snapshots.sha256,
  items.title, items.summary, items.published, items.updated, items.author`;

/**
 * A feed's templates with their active wrappers, as JSON text (signature, selector): what the
 * worker pool needs to extract a page of the feed, sent without parsing and re-serialising.
 */
const templateChoice = z.object({ id: integer, signature: text, wrapperId: nullableInteger, wrapper: nullableText });

export function templateChoicesOf(feedId: number): Steps<Array<z.infer<typeof templateChoice>>> {
  return rows(templateChoice, `SELECT templates.id, templates.signature, wrappers.id AS "wrapperId", wrappers.selector AS wrapper FROM templates
    LEFT JOIN wrappers ON wrappers.id = (SELECT MAX(id) FROM wrappers WHERE template_id = templates.id AND active = 1)
    WHERE templates.feed_id = ? ORDER BY templates.id`, [feedId], 'templateChoicesOf');
}

/** A new template of the feed; returns its id. */
export function addTemplate(feedId: number, signature: string[]): Steps<number> {
  return inserted('INSERT INTO templates (feed_id, signature, created_at) VALUES (?, ?, ?) RETURNING id', [feedId, JSON.stringify(signature), new Date().toISOString()], 'addTemplate');
}

/** Stores a new wrapper as the template's active one (in the caller's transaction); earlier ones stay as history. */
export function* storeWrapper(feedId: number, templateId: number, wrapper: Wrapper, reason: string): Steps<number> {
  yield* run('UPDATE wrappers SET active = 0 WHERE template_id = ? AND active = 1', [templateId]);
  return yield* inserted(`INSERT INTO wrappers (feed_id, template_id, selector, xpath, relevance, samples, learned_at, active, reason)
    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?) RETURNING id`, [feedId, templateId, JSON.stringify(wrapper), wrapper.xpath, wrapper.relevance, wrapper.samples, new Date().toISOString(), reason], 'storeWrapper');
}

/**
 * Retires a template's active wrapper (issue #69): the template's pages are extracted from the
 * single page until a wrapper is learned again. The wrapper stays as history, saying why.
 */
export function* retireWrapper(wrapperId: number, reason: string): Steps<void> {
  const learned = yield* row(z.object({ reason: text }), 'SELECT reason FROM wrappers WHERE id = ? AND active = 1', [wrapperId], 'retireWrapper', { lock: true });
  if (learned === undefined) return;
  yield* run('UPDATE wrappers SET active = 0, reason = ? WHERE id = ?', [`${learned.reason}; retired: ${reason}`, wrapperId]);
}

const CONFIRMED = '; re-learned unchanged at ';

/**
 * A re-learning that found the active wrapper again: it stays (same id), and says when it was
 * last confirmed (only the last: a busy template is confirmed every 100 pages for months).
 */
export function* confirmWrapper(wrapperId: number, samples: number, reason: string): Steps<void> {
  const learned = yield* row(z.object({ reason: text }), 'SELECT reason FROM wrappers WHERE id = ?', [wrapperId], 'confirmWrapper', { lock: true });
  if (learned === undefined) return;
  yield* run('UPDATE wrappers SET samples = CASE WHEN samples < CAST(@samples AS INTEGER) THEN CAST(@samples AS INTEGER) ELSE samples END, reason = @reason WHERE id = @id',
    { samples, reason: `${learned.reason.split(CONFIRMED)[0]}${CONFIRMED}${reason}`, id: wrapperId });
}

/**
 * Stores a snapshot's extraction and takes it off the queue. When the object is already in
 * `contents` (`contentHash`: a version's, or the same object again), the row points there
 * instead of keeping its own copy of the text and HTML.
 */
export function* saveExtraction(snapshotId: number, itemId: number, templateId: number | null, wrapperId: number | null, article: ArticleObject, contentHash: string | null = null): Steps<void> {
  const shared = contentHash !== null && (yield* exists('SELECT 1 FROM contents WHERE hash = ?', [contentHash]));
  yield* run(`INSERT INTO extractions (snapshot_id, item_id, template_id, wrapper_id, method, title, byline, published, modified, text, html, lead_image, language, reason, extracted_at, content_hash)
    VALUES (@snapshotId, @itemId, @templateId, @wrapperId, @method, @title, @byline, @published, @modified, @text, @html, @leadImage, @language, @reason, @at, @contentHash)
    ON CONFLICT (snapshot_id) DO UPDATE SET template_id = excluded.template_id, wrapper_id = excluded.wrapper_id, method = excluded.method, title = excluded.title,
      byline = excluded.byline, published = excluded.published, modified = excluded.modified, text = excluded.text, html = excluded.html,
      lead_image = excluded.lead_image, language = excluded.language, reason = excluded.reason, extracted_at = excluded.extracted_at, content_hash = excluded.content_hash`, {
    snapshotId, itemId, templateId, wrapperId, method: article.method, title: article.title, byline: article.byline, published: article.published,
    modified: article.modified, text: shared ? '' : article.text, html: shared ? '' : article.html, leadImage: article.leadImage, language: article.language,
    reason: article.reason, at: new Date().toISOString(), contentHash: shared ? contentHash : null,
  });
  yield* dequeueExtraction(snapshotId);
}

/** One more distinct page (item) of a template (revisits of one article count once); returns the count. */
export function* countTemplatePage(templateId: number): Steps<number> {
  return (yield* value(count, 'UPDATE templates SET pages = pages + 1 WHERE id = ? RETURNING pages', [templateId], 'countTemplatePage')) ?? 0;
}

/** Whether the item has an extraction other than this snapshot's (this is a revisit). */
export function itemExtractedBefore(itemId: number, snapshotId: number): Steps<boolean> {
  return exists('SELECT 1 FROM extractions WHERE item_id = ? AND snapshot_id <> ? LIMIT 1', [itemId, snapshotId]);
}

/**
 * The latest snapshot of each of a template's most recent pages (for learning), newest first:
 * one per item, since revisits of one article would make its own text look like template.
 */
export const templatePage = pendingSnapshot.extend({
  text,
  extracted_title: nullableText,
  extracted_byline: nullableText,
  extracted_published: nullableText,
  extracted_modified: nullableText,
  extracted_lead_image: nullableText,
  extracted_language: nullableText,
});

export type TemplatePage = z.infer<typeof templatePage>;

export function* recentSnapshotsOfTemplate(templateId: number, limit: number): Steps<TemplatePage[]> {
  // Newest extractions first through the template's index, a few per page at most (revisits),
  // deduplicated by item here: the cost follows `limit`, not the template's history.
  const found = yield* rows(templatePage, `SELECT ${SNAPSHOT_COLUMNS}, COALESCE(contents.text, extractions.text) AS text, extractions.title AS extracted_title,
    extractions.byline AS extracted_byline, extractions.published AS extracted_published, extractions.modified AS extracted_modified,
    extractions.lead_image AS extracted_lead_image, extractions.language AS extracted_language
    FROM extractions JOIN snapshots ON snapshots.id = extractions.snapshot_id JOIN items ON items.id = snapshots.item_id
    LEFT JOIN contents ON contents.hash = extractions.content_hash
    WHERE extractions.template_id = ? AND snapshots.sha256 IS NOT NULL ORDER BY extractions.snapshot_id DESC LIMIT ?`, [templateId, limit * 8], 'recentSnapshotsOfTemplate');
  const seen = new Set<number>();
  return found.filter((page) => !seen.has(page.item_id) && seen.add(page.item_id)).slice(0, limit);
}

/** A stored snapshot with its item's feed fields, for re-extraction. */
export function snapshotById(id: number): Steps<PendingSnapshot | undefined> {
  return row(pendingSnapshot, `SELECT ${SNAPSHOT_COLUMNS} FROM snapshots JOIN items ON items.id = snapshots.item_id WHERE snapshots.id = ?`, [id], 'snapshotById');
}
