import { z } from 'zod';
import { joinWordMarks, parseSearchQuery, toTsquery } from '../search-query.js';
import { checkedRows, count, integer, nullableText, text } from '../rows.js';
import { hitsOf } from '../rules/search.js';
import type { SearchHit, SearchOptions } from '../store.js';
import type { Sql } from './database.js';

/**
 * Full-text search on PostgreSQL: each content's tsvector (title weight A, text weight B;
 * migrations/postgres/0001) on a GIN index, over every version — text an edit removed is still
 * found. Ranked by ts_rank_cd (cover density), negated so that lower is better as with FTS5's
 * bm25; the snippet is ts_headline's, with the match in [brackets] as on SQLite.
 */

const hitRow = z.object({ article: integer, n: integer, feed: text, url: text, title: nullableText, latest: integer, capturedAt: text, rank: count });
type Row = z.infer<typeof hitRow>;
const snippetRow = z.object({ article: integer, n: integer, snippet: text });

export async function search(sql: Sql, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  const tsquery = toTsquery(parseSearchQuery(query));
  const rows: Row[] = checkedRows(hitRow, await sql.all(`SELECT versions.article_id AS article, versions.n, feeds.url AS feed, articles.url, contents.title,
        articles.versions AS latest, versions.captured_at AS "capturedAt", -ts_rank_cd(contents.search, q.query) AS rank
      FROM (SELECT to_tsquery('forest', @query) AS query) AS q, contents JOIN versions ON versions.hash = contents.hash
      JOIN articles ON articles.id = versions.article_id JOIN feeds ON feeds.id = articles.feed_id
      WHERE contents.search @@ q.query
        AND (@feed::text IS NULL OR feeds.url = @feed::text OR feeds.subscribed_url = @feed::text)
        AND (@since::text IS NULL OR versions.captured_at >= @since::text) AND (@until::text IS NULL OR versions.captured_at <= @until::text)
      ORDER BY rank, versions.article_id, versions.n LIMIT @limit OFFSET @offset`, {
    query: tsquery, feed: options.feed ?? null, since: options.since ?? null, until: options.until ?? null,
    limit: options.allVersions ? options.limit ?? 100 : 10_000, offset: options.allVersions ? options.offset ?? 0 : 0,
  }), 'search');
  const chosen = hitsOf(rows, options);
  // Snippets only for the hits returned: ts_headline reads the whole text.
  const snippets = new Map(checkedRows(snippetRow, await sql.all(`SELECT versions.article_id AS article, versions.n,
      ts_headline('forest', contents.text, to_tsquery('forest', @query), 'StartSel=[, StopSel=], MaxWords=16, MinWords=6, MaxFragments=1, FragmentDelimiter=…') AS snippet
    FROM versions JOIN contents ON contents.hash = versions.hash
    WHERE (versions.article_id, versions.n) IN (SELECT * FROM unnest(@articles::bigint[], @ns::integer[]))`, {
    query: tsquery, articles: chosen.map(({ best }) => best.article), ns: chosen.map(({ best }) => best.n),
  }), 'search snippets').map((row) => [`${row.article}/${row.n}`, joinWordMarks(row.snippet)]));
  return chosen.map(({ best, versions }) => ({
    article: best.article, feed: best.feed, url: best.url, title: best.title, versions, latest: best.latest,
    inLatest: versions.includes(best.latest), capturedAt: best.capturedAt, rank: best.rank, snippet: snippets.get(`${best.article}/${best.n}`) ?? '',
  }));
}
