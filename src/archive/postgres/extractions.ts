import { z } from 'zod';
import type { ArticleObject } from '../../extract/extract.js';
import type { Wrapper } from '../../extract/wrapper.js';
import { pendingSnapshot, SNAPSHOT_COLUMNS, templatePage, type PendingSnapshot } from '../extractions.js';
import { checkedRow, checkedRows, count, integer, nullableInteger, nullableText, text } from '../rows.js';
import type { Sql } from './database.js';

/** Templates, wrappers and extractions on PostgreSQL (as extractions.ts on SQLite). */

const templateChoice = z.object({ id: integer, signature: text, wrapperId: nullableInteger, wrapper: nullableText });

export async function templateChoicesOf(sql: Sql, feedId: number): Promise<Array<z.infer<typeof templateChoice>>> {
  return checkedRows(templateChoice, await sql.all(`SELECT templates.id, templates.signature, wrappers.id AS "wrapperId", wrappers.selector AS wrapper FROM templates
    LEFT JOIN wrappers ON wrappers.id = (SELECT MAX(id) FROM wrappers WHERE template_id = templates.id AND active = 1)
    WHERE templates.feed_id = ? ORDER BY templates.id`, [feedId]), 'templateChoicesOf');
}

export async function addTemplate(sql: Sql, feedId: number, signature: string[]): Promise<number> {
  return Number((await sql.column('INSERT INTO templates (feed_id, signature, created_at) VALUES (?, ?, ?) RETURNING id', [feedId, JSON.stringify(signature), new Date().toISOString()]))[0]);
}

export async function storeWrapper(sql: Sql, feedId: number, templateId: number, wrapper: Wrapper, reason: string): Promise<number> {
  await sql.run('UPDATE wrappers SET active = 0 WHERE template_id = ? AND active = 1', [templateId]);
  return Number((await sql.column(`INSERT INTO wrappers (feed_id, template_id, selector, xpath, relevance, samples, learned_at, active, reason)
    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?) RETURNING id`, [feedId, templateId, JSON.stringify(wrapper), wrapper.xpath, wrapper.relevance, wrapper.samples, new Date().toISOString(), reason]))[0]);
}

const CONFIRMED = '; re-learned unchanged at ';

export async function confirmWrapper(sql: Sql, wrapperId: number, samples: number, reason: string): Promise<void> {
  const learned = checkedRow(text, (await sql.column('SELECT reason FROM wrappers WHERE id = ? FOR UPDATE', [wrapperId]))[0], 'confirmWrapper');
  if (learned === undefined) return;
  await sql.run('UPDATE wrappers SET samples = GREATEST(samples, ?::integer), reason = ? WHERE id = ?', [samples, `${learned.split(CONFIRMED)[0]}${CONFIRMED}${reason}`, wrapperId]);
}

export async function saveExtraction(sql: Sql, snapshotId: number, itemId: number, templateId: number | null, wrapperId: number | null, article: ArticleObject, contentHash: string | null = null): Promise<void> {
  const shared = contentHash !== null && (await sql.get('SELECT 1 FROM contents WHERE hash = ?', [contentHash])) !== undefined;
  await sql.run(`INSERT INTO extractions (snapshot_id, item_id, template_id, wrapper_id, method, title, byline, published, modified, text, html, lead_image, language, reason, extracted_at, content_hash)
    VALUES (@snapshotId, @itemId, @templateId, @wrapperId, @method, @title, @byline, @published, @modified, @text, @html, @leadImage, @language, @reason, @at, @contentHash)
    ON CONFLICT (snapshot_id) DO UPDATE SET template_id = excluded.template_id, wrapper_id = excluded.wrapper_id, method = excluded.method, title = excluded.title,
      byline = excluded.byline, published = excluded.published, modified = excluded.modified, text = excluded.text, html = excluded.html,
      lead_image = excluded.lead_image, language = excluded.language, reason = excluded.reason, extracted_at = excluded.extracted_at, content_hash = excluded.content_hash`, {
    snapshotId, itemId, templateId, wrapperId, method: article.method, title: article.title, byline: article.byline, published: article.published,
    modified: article.modified, text: shared ? '' : article.text, html: shared ? '' : article.html, leadImage: article.leadImage, language: article.language,
    reason: article.reason, at: new Date().toISOString(), contentHash: shared ? contentHash : null,
  });
  await sql.run('DELETE FROM extraction_queue WHERE snapshot_id = ?', [snapshotId]);
}

export async function countTemplatePage(sql: Sql, templateId: number): Promise<number> {
  return checkedRow(count, (await sql.column('UPDATE templates SET pages = pages + 1 WHERE id = ? RETURNING pages', [templateId]))[0], 'countTemplatePage') ?? 0;
}

export async function itemExtractedBefore(sql: Sql, itemId: number, snapshotId: number): Promise<boolean> {
  return (await sql.get('SELECT 1 FROM extractions WHERE item_id = ? AND snapshot_id <> ? LIMIT 1', [itemId, snapshotId])) !== undefined;
}

export async function recentSnapshotsOfTemplate(sql: Sql, templateId: number, limit: number): Promise<Array<z.infer<typeof templatePage>>> {
  const rows = checkedRows(templatePage, await sql.all(`SELECT ${SNAPSHOT_COLUMNS}, COALESCE(contents.text, extractions.text) AS text, extractions.title AS extracted_title,
    extractions.byline AS extracted_byline, extractions.published AS extracted_published, extractions.modified AS extracted_modified,
    extractions.lead_image AS extracted_lead_image, extractions.language AS extracted_language
    FROM extractions JOIN snapshots ON snapshots.id = extractions.snapshot_id JOIN items ON items.id = snapshots.item_id
    LEFT JOIN contents ON contents.hash = extractions.content_hash
    WHERE extractions.template_id = ? AND snapshots.sha256 IS NOT NULL ORDER BY extractions.snapshot_id DESC LIMIT ?`, [templateId, limit * 8]), 'recentSnapshotsOfTemplate');
  const seen = new Set<number>();
  return rows.filter((row) => !seen.has(row.item_id) && seen.add(row.item_id)).slice(0, limit);
}

export async function snapshotById(sql: Sql, id: number): Promise<PendingSnapshot | undefined> {
  return checkedRow(pendingSnapshot, await sql.get(`SELECT ${SNAPSHOT_COLUMNS} FROM snapshots JOIN items ON items.id = snapshots.item_id WHERE snapshots.id = ?`, [id]), 'snapshotById');
}
