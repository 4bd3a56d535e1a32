import { articleSummary } from '../rules/articles.js';
import { checkedRow, checkedRows, count } from '../rows.js';
import type { ArticleFilter, ArticleSummary } from '../store.js';
import type { Sql } from './database.js';

/** Lists of articles on PostgreSQL: the filter's SQL is the dialect's (JSON and prefix matching); the rows are rules/articles.ts's. */

// A language range matches a tag equal to it or starting with it and "-" (RFC 4647 §3.3.1, basic filtering).
/** The filter's conditions, the feed and the tag matched as given (sqlite/article-lists.ts: a page joins its feed, its count does not). */
const articleWhere = (feedMatches: string, tagMatches: string) => `WHERE (@feed::text IS NULL OR ${feedMatches})
      AND (@since::text IS NULL OR articles.first_captured >= @since::text) AND (@until::text IS NULL OR articles.first_captured <= @until::text)
      AND (@tag::text IS NULL OR ${tagMatches}) AND (@changed::integer = 0 OR articles.versions > 1)
      AND (@language::text IS NULL OR EXISTS (SELECT 1 FROM versions JOIN extractions ON extractions.snapshot_id = versions.snapshot_id
        WHERE versions.article_id = articles.id AND versions.n = articles.versions AND (lower(extractions.language) = @language::text OR starts_with(lower(extractions.language), @language::text || '-'))))`;
const ARTICLE_WHERE = articleWhere('feeds.url = @feed::text OR feeds.subscribed_url = @feed::text', 'feeds.tags::jsonb @> jsonb_build_array(@tag::text)');
const COUNT_WHERE = articleWhere('articles.feed_id IN (SELECT id FROM feeds WHERE url = @feed::text OR subscribed_url = @feed::text)',
  'articles.feed_id IN (SELECT id FROM feeds WHERE tags::jsonb @> jsonb_build_array(@tag::text))');
const filterParams = (filter: ArticleFilter) => ({
  feed: filter.feed ?? null, since: filter.since ?? null, until: filter.until ?? null, tag: filter.tag ?? null, changed: filter.changed ? 1 : 0,
  language: filter.language ? filter.language.toLowerCase() : null,
});
const ARTICLE_SUMMARY = `SELECT articles.id, feeds.url AS feed, items.guid, articles.url, articles.canonical_url AS "canonicalUrl", articles.title, articles.versions,
      articles.first_captured AS "firstCaptured", articles.last_checked AS "lastChecked", articles.next_check_at AS "nextCheck"
    FROM articles JOIN feeds ON feeds.id = articles.feed_id JOIN items ON items.id = articles.item_id ${ARTICLE_WHERE}`;

export async function listArticles(sql: Sql, filter: ArticleFilter = {}): Promise<ArticleSummary[]> {
  return checkedRows(articleSummary, await sql.all(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured, articles.id`, filterParams(filter)), 'listArticles');
}

export async function pageOfArticles(sql: Sql, filter: ArticleFilter, page: { limit: number; offset: number }): Promise<{ articles: ArticleSummary[]; total: number }> {
  const params = filterParams(filter);
  const articles = checkedRows(articleSummary, await sql.all(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit OFFSET @offset`,
    { ...params, limit: page.limit, offset: page.offset }), 'pageOfArticles');
  const total = checkedRow(count, (await sql.column(`SELECT COUNT(*) FROM articles ${COUNT_WHERE}`, params))[0], 'pageOfArticles') ?? 0;
  return { articles, total };
}

export async function articlesAfter(sql: Sql, filter: ArticleFilter, after: { firstCaptured: string; id: number } | null, limit: number): Promise<ArticleSummary[]> {
  return checkedRows(articleSummary, await sql.all(`${ARTICLE_SUMMARY} AND (@afterAt::text IS NULL OR articles.first_captured < @afterAt::text
      OR (articles.first_captured = @afterAt::text AND articles.id < @afterId::bigint))
    ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit`, { ...filterParams(filter), afterAt: after?.firstCaptured ?? null, afterId: after?.id ?? 0, limit }), 'articlesAfter');
}
