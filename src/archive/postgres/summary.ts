import { z } from 'zod';
import { changeRow, type ChangeRow } from '../rules/access.js';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import type { CheckCounts } from '../store.js';
import type { Sql } from './database.js';

/** Archive-wide totals, the change feed, Memento's captures and a feed's wrappers on PostgreSQL (as summary.ts and access.ts on SQLite). */

export async function checkCounts(sql: Sql): Promise<CheckCounts> {
  const row = checkedRow(z.object({ total: count, firstCaptures: count, unchanged: count, changed: count, gone: count, unavailable: count, failed: count }), await sql.get(`SELECT COUNT(*) AS total,
      COUNT(*) FILTER (WHERE result = 'changed' AND version_n = 1) AS "firstCaptures", COUNT(*) FILTER (WHERE result = 'unchanged') AS unchanged,
      COUNT(*) FILTER (WHERE result = 'changed' AND version_n > 1) AS changed, COUNT(*) FILTER (WHERE result = 'gone') AS gone,
      COUNT(*) FILTER (WHERE result = 'unavailable') AS unavailable, COUNT(*) FILTER (WHERE result = 'failed') AS failed FROM checks`), 'checkCounts')!;
  const { total, ...counts } = row;
  return { ...counts, revisits: total - counts.firstCaptures };
}

export async function versionsByMethod(sql: Sql): Promise<Record<string, number>> {
  const rows = checkedRows(z.object({ method: text, n: count }), await sql.all('SELECT method, COUNT(*) AS n FROM versions GROUP BY method ORDER BY method'), 'versionsByMethod');
  return Object.fromEntries(rows.map((row) => [row.method, row.n]));
}

export async function articleVersionCounts(sql: Sql): Promise<Array<{ id: number; url: string; versions: number }>> {
  return checkedRows(z.object({ id: integer, url: text, versions: integer }), await sql.all('SELECT id, url, versions FROM articles ORDER BY id'), 'articleVersionCounts');
}

const one = async (sql: Sql, query: string, name: string) => checkedRow(count, (await sql.column(query))[0], name) ?? 0;

export const countArticles = (sql: Sql) => one(sql, 'SELECT COUNT(*) FROM articles', 'countArticles');
export const storedBodyBytes = (sql: Sql) => one(sql, 'SELECT COALESCE(SUM(octet_length(data)), 0) FROM blobs', 'storedBodyBytes');

export async function exampleCaptures(sql: Sql): Promise<Array<{ title: string | null; url: string | null; finalUrl: string; bytes: number }>> {
  return checkedRows(z.object({ title: nullableText, url: nullableText, finalUrl: text, bytes: count }), await sql.all(`SELECT title, url, "finalUrl", bytes FROM (
      SELECT DISTINCT ON (items.feed_id) items.title, items.link AS url, snapshots.final_url AS "finalUrl", blobs.size AS bytes, snapshots.id FROM snapshots
      JOIN items ON items.id = snapshots.item_id JOIN blobs ON blobs.sha256 = snapshots.sha256 ORDER BY items.feed_id, snapshots.id) AS first ORDER BY id`), 'exampleCaptures');
}

export async function activeWrappers(sql: Sql): Promise<Array<{ feed: string; xpath: string; samples: number }>> {
  return checkedRows(z.object({ feed: text, xpath: text, samples: integer }), await sql.all(`SELECT COALESCE(feeds.title, feeds.url) AS feed, wrappers.xpath, wrappers.samples
    FROM wrappers JOIN feeds ON feeds.id = wrappers.feed_id WHERE wrappers.active = 1 ORDER BY feeds.id`), 'activeWrappers');
}

export async function recentChanges(sql: Sql, filter: { feed?: string | undefined; tag?: string | undefined }, limit: number): Promise<ChangeRow[]> {
  return checkedRows(changeRow, await sql.all(`SELECT versions.article_id AS "articleId", versions.n, versions.captured_at AS "capturedAt", contents.title, articles.url, versions.change,
      versions.summary, versions.diff, feeds.subscribed_url AS feed, COALESCE(feeds.title, feeds.feed_title) AS "feedTitle"
    FROM versions JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id JOIN contents ON contents.hash = versions.hash
    WHERE versions.n > 1 AND (@feed::text IS NULL OR feeds.url = @feed::text OR feeds.subscribed_url = @feed::text)
      AND (@tag::text IS NULL OR feeds.tags::jsonb @> jsonb_build_array(@tag::text))
    ORDER BY versions.captured_at DESC LIMIT @limit`, { feed: filter.feed ?? null, tag: filter.tag ?? null, limit }), 'recentChanges');
}
