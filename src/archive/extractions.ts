import type { ArticleObject } from '../extract/extract.js';
import type { Wrapper } from '../extract/wrapper.js';
import { z } from 'zod';
import type { Db } from './database.js';
import { dequeueExtraction } from './queues.js';
import { checkedRow, checkedRows, count, integer, nullableInteger, nullableText, text } from './rows.js';

export interface TemplateRow {
  id: number;
  feed_id: number;
  signature: string[];
}

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

export function templateChoicesOf(db: Db, feedId: number): Array<z.infer<typeof templateChoice>> {
  return checkedRows(templateChoice, db.prepare(`SELECT templates.id, templates.signature, wrappers.id AS wrapperId, wrappers.selector AS wrapper FROM templates
    LEFT JOIN wrappers ON wrappers.id = (SELECT MAX(id) FROM wrappers WHERE template_id = templates.id AND active = 1)
    WHERE templates.feed_id = ? ORDER BY templates.id`).all(feedId), 'templateChoicesOf');
}

export function addTemplate(db: Db, feedId: number, signature: string[]): TemplateRow {
  const { lastInsertRowid } = db.prepare('INSERT INTO templates (feed_id, signature, created_at) VALUES (?, ?, ?)').run(feedId, JSON.stringify(signature), new Date().toISOString());
  return { id: Number(lastInsertRowid), feed_id: feedId, signature };
}

/** Stores a new wrapper as the template's active one; earlier ones stay as history. */
export function storeWrapper(db: Db, feedId: number, templateId: number, wrapper: Wrapper, reason: string): number {
  return db.transaction(() => {
    db.prepare('UPDATE wrappers SET active = 0 WHERE template_id = ? AND active = 1').run(templateId);
    const { lastInsertRowid } = db.prepare(`INSERT INTO wrappers (feed_id, template_id, selector, xpath, relevance, samples, learned_at, active, reason)
      VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)`).run(feedId, templateId, JSON.stringify(wrapper), wrapper.xpath, wrapper.relevance, wrapper.samples, new Date().toISOString(), reason);
    return Number(lastInsertRowid);
  })();
}

/**
 * Stores a snapshot's extraction and takes it off the queue. When the object is already in
 * `contents` (`contentHash`: a version's, or the same object again), the row points there
 * instead of keeping its own copy of the text and HTML.
 */
const CONFIRMED = '; re-learned unchanged at ';

/**
 * A re-learning that found the active wrapper again: it stays (same id), and says when it was
 * last confirmed (only the last: a busy template is confirmed every 100 pages for months).
 */
export function confirmWrapper(db: Db, wrapperId: number, samples: number, reason: string): void {
  const learned = checkedRow(text, db.prepare('SELECT reason FROM wrappers WHERE id = ?').pluck().get(wrapperId), 'confirmWrapper');
  if (learned === undefined) return;
  db.prepare('UPDATE wrappers SET samples = MAX(samples, ?), reason = ? WHERE id = ?').run(samples, `${learned.split(CONFIRMED)[0]}${CONFIRMED}${reason}`, wrapperId);
}

export function saveExtraction(db: Db, snapshotId: number, itemId: number, templateId: number | null, wrapperId: number | null, article: ArticleObject, contentHash: string | null = null): void {
  const shared = contentHash !== null && db.prepare('SELECT 1 FROM contents WHERE hash = ?').get(contentHash) !== undefined;
  db.prepare(`INSERT INTO extractions (snapshot_id, item_id, template_id, wrapper_id, method, title, byline, published, modified, text, html, lead_image, language, reason, extracted_at, content_hash)
    VALUES (@snapshotId, @itemId, @templateId, @wrapperId, @method, @title, @byline, @published, @modified, @text, @html, @leadImage, @language, @reason, @at, @contentHash)
    ON CONFLICT (snapshot_id) DO UPDATE SET template_id = excluded.template_id, wrapper_id = excluded.wrapper_id, method = excluded.method, title = excluded.title,
      byline = excluded.byline, published = excluded.published, modified = excluded.modified, text = excluded.text, html = excluded.html,
      lead_image = excluded.lead_image, language = excluded.language, reason = excluded.reason, extracted_at = excluded.extracted_at, content_hash = excluded.content_hash`)
    .run({
      snapshotId, itemId, templateId, wrapperId, method: article.method, title: article.title, byline: article.byline, published: article.published,
      modified: article.modified, text: shared ? '' : article.text, html: shared ? '' : article.html, leadImage: article.leadImage, language: article.language,
      reason: article.reason, at: new Date().toISOString(), contentHash: shared ? contentHash : null,
    });
  dequeueExtraction(db, snapshotId);
}

/** One more distinct page (item) of a template (revisits of one article count once); returns the count. */
export function countTemplatePage(db: Db, templateId: number): number {
  return checkedRow(count, db.prepare('UPDATE templates SET pages = pages + 1 WHERE id = ? RETURNING pages').pluck().get(templateId), 'countTemplatePage') ?? 0;
}

/** Whether the item has an extraction other than this snapshot's (this is a revisit). */
export function itemExtractedBefore(db: Db, itemId: number, snapshotId: number): boolean {
  return db.prepare('SELECT 1 FROM extractions WHERE item_id = ? AND snapshot_id != ? LIMIT 1').get(itemId, snapshotId) !== undefined;
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

export function recentSnapshotsOfTemplate(db: Db, templateId: number, limit: number): Array<z.infer<typeof templatePage>> {
  // Newest extractions first through the template's index, a few per page at most (revisits),
  // deduplicated by item here: the cost follows `limit`, not the template's history.
  const rows = checkedRows(templatePage, db.prepare(`SELECT ${SNAPSHOT_COLUMNS}, COALESCE(contents.text, extractions.text) AS text, extractions.title AS extracted_title,
    extractions.byline AS extracted_byline, extractions.published AS extracted_published, extractions.modified AS extracted_modified,
    extractions.lead_image AS extracted_lead_image, extractions.language AS extracted_language
    FROM extractions JOIN snapshots ON snapshots.id = extractions.snapshot_id JOIN items ON items.id = snapshots.item_id
    LEFT JOIN contents ON contents.hash = extractions.content_hash
    WHERE extractions.template_id = ? AND snapshots.sha256 IS NOT NULL ORDER BY extractions.snapshot_id DESC LIMIT ?`).all(templateId, limit * 8), 'recentSnapshotsOfTemplate');
  const seen = new Set<number>();
  return rows.filter((row) => !seen.has(row.item_id) && seen.add(row.item_id)).slice(0, limit);
}

/** A stored snapshot with its item's feed fields, for re-extraction. */
export function snapshotById(db: Db, id: number): PendingSnapshot | undefined {
  return checkedRow(pendingSnapshot, db.prepare(`SELECT ${SNAPSHOT_COLUMNS} FROM snapshots JOIN items ON items.id = snapshots.item_id WHERE snapshots.id = ?`).get(id), 'snapshotById');
}
