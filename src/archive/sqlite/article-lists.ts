import type { Db } from './database.js';
import { articleSummary } from '../rules/articles.js';
import { checkedRow, checkedRows, count } from '../rows.js';
import type { ArticleFilter, ArticleSummary } from '../store.js';

/** Lists of articles on SQLite: the filter's SQL is the dialect's (JSON and prefix matching); the rows are rules/articles.ts's. */

// A language range matches a tag equal to it or starting with it and "-" (RFC 4647 §3.3.1, basic filtering): "en" selects en, en-GB, en-US.
/** The filter's conditions, the feed and the tag matched as given (the rest is the same for a page and its count). */
const articleWhere = (feedMatches: string, tagMatches: string) => `WHERE (@feed IS NULL OR ${feedMatches})
      AND (@since IS NULL OR articles.first_captured >= @since) AND (@until IS NULL OR articles.first_captured <= @until)
      AND (@tag IS NULL OR ${tagMatches}) AND (@changed = 0 OR articles.versions > 1)
      AND (@language IS NULL OR EXISTS (SELECT 1 FROM versions JOIN extractions ON extractions.snapshot_id = versions.snapshot_id
        WHERE versions.article_id = articles.id AND versions.n = articles.versions AND (lower(extractions.language) = @language OR lower(extractions.language) LIKE @language || '-%')))`;
/** A page's rows, joined with their feed and item: the feed and tag on the joined feed (index lookups along the page's order). */
const ARTICLE_WHERE = articleWhere('feeds.url = @feed OR feeds.subscribed_url = @feed', 'EXISTS (SELECT 1 FROM json_each(feeds.tags) WHERE json_each.value = @tag)');
/**
 * A page's total reads the articles alone, the feed and tag matched by the article's feed id:
 * joined with every feed and item, it took 4.6 s at a million articles (bench:hundred-thousand), 0.2 s so.
 */
const COUNT_WHERE = articleWhere('articles.feed_id IN (SELECT id FROM feeds WHERE url = @feed OR subscribed_url = @feed)',
  'articles.feed_id IN (SELECT feeds.id FROM feeds, json_each(feeds.tags) WHERE json_each.value = @tag)');
const filterParams = (filter: ArticleFilter) => ({
  feed: filter.feed ?? null, since: filter.since ?? null, until: filter.until ?? null, tag: filter.tag ?? null, changed: filter.changed ? 1 : 0,
  language: filter.language ? filter.language.toLowerCase() : null,
});
const ARTICLE_SUMMARY = `SELECT articles.id, feeds.url AS feed, items.guid, articles.url, articles.canonical_url AS canonicalUrl, articles.title, articles.versions,
      articles.first_captured AS firstCaptured, articles.last_checked AS lastChecked, articles.next_check_at AS nextCheck
    FROM articles JOIN feeds ON feeds.id = articles.feed_id JOIN items ON items.id = articles.item_id ${ARTICLE_WHERE}`;

/** Every article the filter selects, oldest first (the order of an export). */
export function listArticles(db: Db, filter: ArticleFilter = {}): ArticleSummary[] {
  return checkedRows(articleSummary, db.prepare(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured, articles.id`).all(filterParams(filter)), 'listArticles');
}

/** One page of the articles the filter selects, newest first, and how many it selects in all. */
export function pageOfArticles(db: Db, filter: ArticleFilter, page: { limit: number; offset: number }): { articles: ArticleSummary[]; total: number } {
  const params = filterParams(filter);
  const articles = checkedRows(articleSummary, db.prepare(`${ARTICLE_SUMMARY} ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit OFFSET @offset`)
    .all({ ...params, limit: page.limit, offset: page.offset }), 'pageOfArticles');
  const total = checkedRow(count, db.prepare(`SELECT COUNT(*) FROM articles ${COUNT_WHERE}`).pluck().get(params), 'pageOfArticles') ?? 0;
  return { articles, total };
}

/**
 * The articles the filter selects that come after `after` in newest-first order, at most
 * `limit`: a page that stays right while new articles arrive (keyset, on the
 * articles_first_captured index; an offset would shift under the reader).
 */
export function articlesAfter(db: Db, filter: ArticleFilter, after: { firstCaptured: string; id: number } | null, limit: number): ArticleSummary[] {
  return checkedRows(articleSummary, db.prepare(`${ARTICLE_SUMMARY} AND (@afterAt IS NULL OR articles.first_captured < @afterAt OR (articles.first_captured = @afterAt AND articles.id < @afterId))
    ORDER BY articles.first_captured DESC, articles.id DESC LIMIT @limit`)
    .all({ ...filterParams(filter), afterAt: after?.firstCaptured ?? null, afterId: after?.id ?? 0, limit }), 'articlesAfter');
}
