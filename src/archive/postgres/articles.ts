import { groupedByCanonical } from '../../net/site.js';
import { z } from 'zod';
import type { NextCheck } from '../../schedule/revisit.js';
import { articleRow, articleSummary, checkRow, VERSION_COLUMNS, versionRow, type ArticleRow, type CheckRow, type VersionRow } from '../articles.js';
import type { ObjectDiff } from '../diff.js';
import { unpackContent } from '../packed-content.js';
import { checkedRow, checkedRows, count, integer, nullableText, text } from '../rows.js';
import type {
  ArticleFilter, ArticleState, ArticleSummary, CheckedPage, FetchedPage, RevisitRecord, StoredComparisonKey, VersionContent, VersionDecision,
} from '../store.js';
import { insertSnapshot } from './captures.js';
import type { Sql } from './database.js';

/** Articles, versions and checks on PostgreSQL (as articles.ts on SQLite; the rules that decide what to write are the daemon's). */

export async function articleOfItem(sql: Sql, itemId: number): Promise<ArticleRow | undefined> {
  return checkedRow(articleRow, await sql.get('SELECT * FROM articles WHERE item_id = ?', [itemId]), 'articleOfItem');
}

/** The article of an item, locked until the transaction ends: two extractions of one article decide one after the other. */
export async function articleOfItemForUpdate(sql: Sql, itemId: number): Promise<ArticleRow | undefined> {
  return checkedRow(articleRow, await sql.get('SELECT * FROM articles WHERE item_id = ? FOR UPDATE', [itemId]), 'articleOfItem');
}

export async function articleById(sql: Sql, id: number): Promise<ArticleRow | undefined> {
  return checkedRow(articleRow, await sql.get('SELECT * FROM articles WHERE id = ?', [id]), 'articleById');
}

export async function versionOf(sql: Sql, articleId: number, n: number): Promise<VersionRow | undefined> {
  return checkedRow(versionRow, await sql.get(`SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? AND versions.n = ?`, [articleId, n]), 'versionOf');
}

export async function versionsOf(sql: Sql, articleId: number): Promise<VersionRow[]> {
  return checkedRows(versionRow, await sql.all(`SELECT ${VERSION_COLUMNS} FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE versions.article_id = ? ORDER BY versions.n`, [articleId]), 'versionsOf');
}

export async function checksOf(sql: Sql, articleId: number): Promise<CheckRow[]> {
  return checkedRows(checkRow, await sql.all('SELECT * FROM checks WHERE article_id = ? ORDER BY at, id', [articleId]), 'checksOf');
}

/** Other articles (in other feeds, or other items) with the same canonical URL, of the same site as each (net/site.ts). */
export async function sameArticleElsewhere(sql: Sql, article: ArticleRow): Promise<number[]> {
  if (!article.canonical_url) return [];
  const others = checkedRows(articleUrls, await sql.all('SELECT id, url, final_url AS "finalUrl" FROM articles WHERE canonical_url = ? AND id <> ? ORDER BY id', [article.canonical_url, article.id]), 'sameArticleElsewhere');
  return groupedByCanonical({ id: article.id, url: article.url, finalUrl: article.final_url, canonicalUrl: article.canonical_url }, others).map((other) => other.id);
}

const articleUrls = z.object({ id: integer, url: text, finalUrl: nullableText });

const storedObject = z.object({ blocks: text, packed: z.instanceof(Uint8Array).nullable() });

export async function comparisonKeyOf(sql: Sql, article: ArticleRow): Promise<StoredComparisonKey | null> {
  if (article.compare_hash === null || article.compare_method === null || article.compare_snapshot_id === null) return null;
  const stored = article.compare_object === null ? checkedRow(storedObject, await sql.get('SELECT blocks, packed FROM contents WHERE hash = ?', [article.compare_hash]), 'comparisonKeyOf') : undefined;
  const object = article.compare_object ?? (stored && (stored.packed === null ? stored.blocks : unpackContent(stored.packed).blocks));
  if (object === undefined) return null;
  return {
    hash: article.compare_hash, method: article.compare_method, wrapperId: article.compare_wrapper_id, snapshotId: article.compare_snapshot_id, object,
    extractor: article.compare_extractor, source: article.compare_source,
  };
}

export async function setComparisonKey(sql: Sql, articleId: number, key: StoredComparisonKey): Promise<void> {
  await sql.run(`UPDATE articles SET compare_hash = ?, compare_method = ?, compare_wrapper_id = ?, compare_snapshot_id = ?, compare_object = ?, compare_extractor = ?, compare_source = ? WHERE id = ?`,
    [key.hash, key.method, key.wrapperId, key.snapshotId, key.object, key.extractor, key.source, articleId]);
}

async function insertVersion(sql: Sql, articleId: number, n: number, content: VersionContent, diff: ObjectDiff | null): Promise<void> {
  const packed = Buffer.from(content.packed.buffer, content.packed.byteOffset, content.packed.byteLength);
  await sql.run(`INSERT INTO contents (hash, title, byline, published, text, html, blocks, packed) VALUES (?, ?, ?, ?, ?, '', '', ?) ON CONFLICT (hash) DO NOTHING`,
    [content.hash, content.title, content.byline, content.published, content.text, packed]);
  await sql.run(`UPDATE articles SET compare_hash = ?, compare_method = ?, compare_wrapper_id = ?, compare_snapshot_id = ?, compare_object = NULL, compare_extractor = ?, compare_source = ? WHERE id = ?`,
    [content.hash, content.method, content.wrapperId, content.snapshotId, content.extractor, content.source, articleId]);
  await sql.run(`INSERT INTO versions (article_id, n, snapshot_id, captured_at, method, wrapper_id, hash, change, summary, diff) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [articleId, n, content.snapshotId, content.capturedAt, content.method, content.wrapperId, content.hash,
      JSON.stringify(diff?.kinds ?? []), diff ? diff.summary : 'first capture', diff ? JSON.stringify(diff) : null]);
}

async function insertCheck(sql: Sql, articleId: number, page: CheckedPage, result: CheckRow['result'], versionN: number | null, reason: string | null): Promise<void> {
  await sql.run('INSERT INTO checks (article_id, at, status, result, snapshot_id, version_n, reason) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [articleId, page.at, page.status, result, page.snapshotId, versionN, reason]);
}

async function updateSchedule(sql: Sql, articleId: number, page: CheckedPage, next: NextCheck, title?: string | null): Promise<void> {
  await sql.run(`UPDATE articles SET last_checked = @at, revisit_step = @step, next_check_at = @next,
      etag = CASE WHEN @status::integer = 200 THEN @etag::text ELSE etag END, last_modified = CASE WHEN @status::integer = 200 THEN @lastModified::text ELSE last_modified END,
      title = COALESCE(@title::text, title)
    WHERE id = @id`, {
    id: articleId, at: page.at, step: next.step, next: next.at, status: page.status, title: title ?? null,
    etag: page.headers?.['etag'] ?? null, lastModified: page.headers?.['last-modified'] ?? null,
  });
}

async function noteComeBack(sql: Sql, article: ArticleRow, reason: string | null): Promise<string | null> {
  if (article.gone_since === null) return reason;
  await sql.run('UPDATE articles SET gone_since = NULL WHERE id = ?', [article.id]);
  return `back (gone since ${article.gone_since})${reason ? `; ${reason}` : ''}`;
}

async function insertCheckOf(sql: Sql, article: ArticleRow, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): Promise<void> {
  await insertCheck(sql, article.id, page, result, article.versions, result === 'unchanged' ? await noteComeBack(sql, article, reason) : reason);
  await updateSchedule(sql, article.id, page, next);
}

/** Records what change detection decided for a capture of the item of `article` (in the caller's transaction). */
export async function applyDecision(sql: Sql, article: ArticleRow | undefined, decision: VersionDecision): Promise<void> {
  if (decision.kind === 'none') return;
  if (decision.kind === 'first') {
    const { article: fresh, content, page, next } = decision;
    const id = Number((await sql.column(`INSERT INTO articles (item_id, feed_id, url, final_url, canonical_url, title, versions, first_captured)
      VALUES (?, ?, ?, ?, ?, ?, 1, ?) RETURNING id`, [fresh.itemId, fresh.feedId, fresh.url, fresh.finalUrl, fresh.canonicalUrl, content.title, content.capturedAt]))[0]);
    await insertVersion(sql, id, 1, content, null);
    await insertCheck(sql, id, page, 'changed', 1, 'first capture');
    await updateSchedule(sql, id, page, next, content.title);
    return;
  }
  if (!article) throw new Error(`a ${decision.kind} needs an article, and the item has none`);
  if (decision.kind === 'check') {
    await insertCheckOf(sql, article, decision.page, decision.result, decision.next, decision.reason);
    if (decision.sameObject) await sql.run('UPDATE articles SET compare_source = ? WHERE id = ? AND compare_hash = ?', [decision.sameObject.source, article.id, decision.sameObject.hash]);
    return;
  }
  const n = article.versions + 1;
  await insertVersion(sql, article.id, n, decision.content, decision.diff);
  await sql.run('UPDATE articles SET versions = ? WHERE id = ?', [n, article.id]);
  await insertCheck(sql, article.id, decision.page, 'changed', n, await noteComeBack(sql, article, decision.reason));
  await updateSchedule(sql, article.id, decision.page, decision.next, decision.content.title);
}

export async function articleStateOf(sql: Sql, row: ArticleRow): Promise<ArticleState> {
  const latest = checkedRow(z.object({ length: count, captured_at: text }), await sql.get(`SELECT length(contents.text) AS length, versions.captured_at
    FROM versions JOIN contents ON contents.hash = versions.hash WHERE versions.article_id = ? AND versions.n = ?`, [row.id, row.versions]), 'articleStateOf');
  return {
    id: row.id, url: row.url, canonicalUrl: row.canonical_url, revisitStep: row.revisit_step, latestTextLength: latest?.length ?? 0,
    latestCapturedAt: latest?.captured_at ?? null,
  };
}

async function storedArticle(sql: Sql, id: number): Promise<ArticleRow> {
  const row = checkedRow(articleRow, await sql.get('SELECT * FROM articles WHERE id = ? FOR UPDATE', [id]), 'storedArticle');
  if (!row) throw new Error(`article ${id} is not in the archive`);
  return row;
}

export async function recordCheck(sql: Sql, articleId: number, page: CheckedPage, result: 'unchanged' | 'failed' | 'unavailable', next: NextCheck, reason: string | null): Promise<void> {
  await insertCheckOf(sql, await storedArticle(sql, articleId), page, result, next, reason);
}

export async function recordRevisit(sql: Sql, articleId: number, page: FetchedPage, record: RevisitRecord): Promise<number> {
  const article = await storedArticle(sql, articleId);
  const snapshotId = await insertSnapshot(sql, article.item_id, page, record.body, record.kind === 'extract' ? 'revisit' : null);
  if (record.kind === 'extract') {
    await sql.run('UPDATE articles SET next_check_at = NULL WHERE id = ?', [article.id]);
    return snapshotId;
  }
  const checked: CheckedPage = { at: page.fetchedAt.toISOString(), status: page.status, snapshotId, headers: page.headers };
  let reason: string | null;
  if (record.kind === 'gone') {
    await sql.run('UPDATE articles SET gone_since = COALESCE(gone_since, ?) WHERE id = ?', [checked.at, article.id]);
    reason = `HTTP ${page.status}${article.gone_since ? ` (gone since ${article.gone_since})` : ''}`;
  } else {
    reason = record.kind === 'identical' ? await noteComeBack(sql, article, 'identical payload') : record.reason;
  }
  await insertCheck(sql, article.id, checked, record.kind === 'identical' ? 'unchanged' : record.kind, article.versions, reason);
  await updateSchedule(sql, article.id, checked, record.next);
  return snapshotId;
}

const articleAt = z.object({ id: integer, title: nullableText });

export async function otherArticleAt(sql: Sql, url: string, exceptId: number): Promise<{ id: number; title: string | null } | null> {
  return checkedRow(articleAt, await sql.get('SELECT id, title FROM articles WHERE url = ? AND id <> ? LIMIT 1', [url, exceptId]), 'otherArticleAt') ?? null;
}

// A language range matches a tag equal to it or starting with it and "-" (RFC 4647 §3.3.1, basic filtering).
const ARTICLE_FILTER = `FROM articles JOIN feeds ON feeds.id = articles.feed_id JOIN items ON items.id = articles.item_id
    WHERE (@feed::text IS NULL OR feeds.url = @feed::text OR feeds.subscribed_url = @feed::text) AND (@since::text IS NULL OR articles.first_captured >= @since::text)
      AND (@until::text IS NULL OR articles.first_captured <= @until::text)
      AND (@tag::text IS NULL OR feeds.tags::jsonb @> jsonb_build_array(@tag::text)) AND (@changed::integer = 0 OR articles.versions > 1)
      AND (@language::text IS NULL OR EXISTS (SELECT 1 FROM versions JOIN extractions ON extractions.snapshot_id = versions.snapshot_id
        WHERE versions.article_id = articles.id AND versions.n = articles.versions AND (lower(extractions.language) = @language::text OR starts_with(lower(extractions.language), @language::text || '-'))))`;
const filterParams = (filter: ArticleFilter) => ({
  feed: filter.feed ?? null, since: filter.since ?? null, until: filter.until ?? null, tag: filter.tag ?? null, changed: filter.changed ? 1 : 0,
  language: filter.language ? filter.language.toLowerCase() : null,
});
const ARTICLE_SUMMARY = `SELECT articles.id, feeds.url AS feed, items.guid, articles.url, articles.canonical_url AS "canonicalUrl", articles.title, articles.versions,
      articles.first_captured AS "firstCaptured", articles.last_checked AS "lastChecked", articles.next_check_at AS "nextCheck" ${ARTICLE_FILTER}`;

export async function listArticles(sql: Sql, filter: ArticleFilter = {}): Promise<ArticleSummary[]> {
  return checkedRows(articleSummary, await sql.all(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured, articles.id`, filterParams(filter)), 'listArticles');
}

export async function pageOfArticles(sql: Sql, filter: ArticleFilter, page: { limit: number; offset: number }): Promise<{ articles: ArticleSummary[]; total: number }> {
  const params = filterParams(filter);
  const articles = checkedRows(articleSummary, await sql.all(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit OFFSET @offset`,
    { ...params, limit: page.limit, offset: page.offset }), 'pageOfArticles');
  const total = checkedRow(count, (await sql.column(`SELECT COUNT(*) ${ARTICLE_FILTER}`, params))[0], 'pageOfArticles') ?? 0;
  return { articles, total };
}

export async function articlesAfter(sql: Sql, filter: ArticleFilter, after: { firstCaptured: string; id: number } | null, limit: number): Promise<ArticleSummary[]> {
  return checkedRows(articleSummary, await sql.all(`${ARTICLE_SUMMARY} AND (@afterAt::text IS NULL OR articles.first_captured < @afterAt::text
      OR (articles.first_captured = @afterAt::text AND articles.id < @afterId::bigint))
    ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit`, { ...filterParams(filter), afterAt: after?.firstCaptured ?? null, afterId: after?.id ?? 0, limit }), 'articlesAfter');
}
